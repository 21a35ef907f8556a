// What the API needs of the console: where its build is. Plain JavaScript (types in server.d.ts):
// the rest of this package is a browser app that Vite builds, so nothing here is compiled for Node.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The built console (`npm run build -w @parley/console`, run by `npm install` and `npm start`). */
export const consoleDistDir = resolve(import.meta.dirname, 'dist');

/** True once the console has been built; the API answers /console with how to build it otherwise. */
export function consoleIsBuilt(dir = consoleDistDir) {
  return existsSync(join(dir, 'index.html'));
}
