// `npm start` and `npm test` (package.json), on whatever Node.js the machine has: Node 24 from the npm
// registry when the machine's is older (scripts/lib/node.mjs), then, with it first on PATH, install what
// is missing (npm ci), build what is stale, and run. Plain JavaScript that runs on the older Node.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode, envWithNode } from './lib/node.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const [command, ...rest] = process.argv.slice(2);
if (command !== 'start' && command !== 'test') {
  process.stderr.write('usage: node scripts/run.mjs start|test [args]\n');
  process.exit(2);
}

const bin = ensureNode(root);
const env = envWithNode(bin);
const node = bin ? join(bin, 'node') : process.execPath;

// Ctrl-C reaches every process of the terminal's group: the child stops on its own, and this process
// waits for it instead of dying first (a handler keeps Node from exiting; spawnSync then returns).
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

/** Runs a step to completion; stops with its exit code when it fails. */
function step(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`${cmd}: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// Dependencies: `npm ci` when node_modules is missing or older than the lockfile.
const installed = join(root, 'node_modules/.package-lock.json');
if (
  !existsSync(installed) ||
  statSync(installed).mtimeMs < statSync(join(root, 'package-lock.json')).mtimeMs
) {
  process.stderr.write('Installing dependencies (npm ci)…\n');
  step('npm', ['ci', '--no-audit', '--no-fund']);
}

// The packages' compiled JavaScript and the operator console (a single-page app): whatever is
// missing or older than its sources.
step(node, [join(root, 'scripts/build.mjs')]);
step(node, [join(root, 'scripts/build-console.mjs')]);

if (command === 'start') {
  step(node, [join(root, 'apps/cli/bin/parley.js'), 'start', ...rest]);
} else {
  step('npm', ['run', '--silent', 'check']);
  // The dependency rules between the workspaces (docs/decisions.md, "Dependency rules").
  step(node, [join(root, 'scripts/check-deps.mjs')]);
  step('npm', ['run', '--silent', 'typecheck']);
  step(node, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...rest]);
}
