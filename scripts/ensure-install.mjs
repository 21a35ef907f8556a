// Installs dependencies when they are missing or older than package-lock.json,
// so that `npm start` and `npm test` work on a fresh clone as the first command.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const installed = 'node_modules/.package-lock.json';
const stale = !existsSync(installed) || statSync(installed).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale) {
  process.stderr.write('Installing dependencies (npm ci)…\n');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// The operator console is a built single-page app; build it when missing or stale.
const build = spawnSync(process.execPath, ['scripts/build-console.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
