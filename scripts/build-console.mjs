// Builds the operator console (apps/console → apps/console/dist) when the build is missing or older
// than its sources. Run by `npm install`/`npm ci` (postinstall) and by `npm start`/`npm test`
// (scripts/run.mjs), so the API always has a console to serve at /console.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const app = join(root, 'apps/console');
const built = join(app, 'dist/index.html');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

if (!existsSync(join(root, 'node_modules/vite'))) {
  // Dependencies not installed yet (a partial install): the next `npm start`/`npm test` builds it.
  process.exit(0);
}
const sources = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(app, p));
const stale = !existsSync(built) || Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
if (stale || process.argv.includes('--force')) {
  process.stderr.write('Building the console (apps/console)…\n');
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: app,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}
