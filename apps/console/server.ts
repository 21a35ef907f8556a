import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The built console (`npm run build -w @parley/console`, run by `npm install` and `npm start`). */
export const consoleDistDir = resolve(import.meta.dirname, 'dist');

/** True once the console has been built; the API answers /console with how to build it otherwise. */
export function consoleIsBuilt(dir: string = consoleDistDir): boolean {
  return existsSync(join(dir, 'index.html'));
}
