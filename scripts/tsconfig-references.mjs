// Keeps TypeScript's project references in step with package.json: each workspace's tsconfig.json
// references the workspaces it depends on (dependencies and devDependencies), and the root
// tsconfig.json (the solution `tsc -b` builds) references every workspace and scripts/. Run by
// `npm run typecheck` before `tsc -b`; it rewrites a tsconfig.json only when its references differ,
// and says so. `--check` fails instead of writing (CI). docs/decisions.md, "Build and typecheck".
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const check = process.argv.includes('--check');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** Every workspace: its directory (relative to the root) and package.json. */
function workspaces() {
  const found = [];
  for (const pattern of readJson(join(root, 'package.json')).workspaces) {
    const parent = pattern.replace(/\/\*$/, '');
    for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = `${parent}/${entry.name}`;
      try {
        found.push({ dir, pkg: readJson(join(root, dir, 'package.json')) });
      } catch {
        // Not a package (no package.json).
      }
    }
  }
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

const stale = [];
/** Writes `references` into the tsconfig.json at `dir` (relative paths, sorted) when they differ. */
function sync(dir, targets) {
  const file = join(root, dir, 'tsconfig.json');
  const config = readJson(file);
  const references = [...new Set(targets)]
    .map((target) => relative(join(root, dir), join(root, target)) || '.')
    .sort()
    .map((path) => ({ path }));
  if (JSON.stringify(config.references ?? []) === JSON.stringify(references)) return;
  stale.push(relative(root, file));
  if (check) return;
  writeFileSync(file, `${JSON.stringify({ ...config, references }, null, 2)}\n`);
}

const all = workspaces();
const dirOf = new Map(all.map(({ dir, pkg }) => [pkg.name, dir]));
for (const { dir, pkg } of all) {
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  sync(
    dir,
    names.filter((name) => dirOf.has(name) && name !== pkg.name).map((name) => dirOf.get(name)),
  );
}
// scripts/ (the benchmarks and vitest.config.ts) may use any workspace.
sync('scripts', [...dirOf.values()]);
sync('.', [...dirOf.values(), 'scripts']);

if (stale.length > 0) {
  const verb = check ? 'out of date' : 'updated';
  process.stderr.write(`project references ${verb} (from package.json): ${stale.join(', ')}\n`);
  if (check) process.exit(1);
  // In the repository's JSON style, so that `npm run check` stays clean.
  spawnSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', ...stale], {
    cwd: root,
    stdio: 'ignore',
  });
}
