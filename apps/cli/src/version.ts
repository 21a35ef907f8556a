import { readFileSync } from 'node:fs';

/** Parley's version (`parley --version`): the CLI package's, one level above src/ and dist/ alike. */
export const cliVersion: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
