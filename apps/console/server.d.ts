/** The built console (`npm run build -w @parley/console`, run by `npm install` and `npm start`). */
export declare const consoleDistDir: string;
/** True once the console has been built; the API answers /console with how to build it otherwise. */
export declare function consoleIsBuilt(dir?: string): boolean;
