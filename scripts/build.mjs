// Compiles every workspace package's src/ to dist/ (JavaScript, one file per source file, so that a
// command loads only the modules it imports) with esbuild, and copies the files that are not
// TypeScript (SQL migrations, the widget's HTML and JS). A package is rebuilt only when something in
// its src/ is newer than its last build (a file added, changed, moved or removed). Typechecking is
// separate (`npm run typecheck`: tsc -b). Run by `npm install` (postinstall), `npm start`, `npm test`
// and the test run's global setup; `npm run build` builds what is stale, `--force` everything.
// docs/decisions.md, "Build and typecheck".
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const STAMP = '.built';

/** Every file and directory under dir (directories change when entries are added or removed). */
function walk(dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    found.push({ path, directory: entry.isDirectory() });
    if (entry.isDirectory()) walk(path, found);
  }
  return found;
}

/** The workspaces whose package.json exports compiled output (./dist/…). */
export function buildablePackages() {
  const dirs = [];
  for (const pattern of JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces) {
    const parent = join(root, pattern.replace(/\/\*$/, ''));
    for (const name of readdirSync(parent)) {
      const dir = join(parent, name);
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest) || !existsSync(join(dir, 'src'))) continue;
      if (readFileSync(manifest, 'utf8').includes('"./dist/')) dirs.push(dir);
    }
  }
  return dirs.sort();
}

function isStale(dir) {
  const stamp = join(dir, 'dist', STAMP);
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  const src = join(dir, 'src');
  return [src, ...walk(src).map((e) => e.path)].some((path) => statSync(path).mtimeMs > built);
}

// Test code is not shipped: specs, and the test helpers of testing/ and spec/ folders (a package's
// `./testing` export points at src/ only, under the `@parley/source` condition the tests run with).
const testCode = (path) =>
  /\.spec\.tsx?$/.test(path) ||
  /(^|[\\/])(testing|spec)[\\/]/.test(path) ||
  /(^|[\\/.])testing\.ts$/.test(path);
const compiled = (path) => /\.tsx?$/.test(path) && !path.endsWith('.d.ts') && !testCode(path);
const copied = (path) => !/\.(tsx?|md)$/.test(path) && !testCode(path);

async function buildPackage(esbuild, dir) {
  const src = join(dir, 'src');
  const files = walk(src)
    .filter((e) => !e.directory)
    .map((e) => e.path);
  // Built aside, then swapped in: a crash half-way leaves the previous build, never half of one.
  const out = join(dir, `dist.building-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const started = Date.now();
  await esbuild.build({
    entryPoints: files.filter((file) => compiled(relative(src, file))),
    outdir: out,
    outbase: src,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    tsconfig: join(dir, 'tsconfig.json'),
  });
  for (const file of files.filter((file) => copied(relative(src, file)))) {
    const target = join(out, relative(src, file));
    mkdirSync(resolve(target, '..'), { recursive: true });
    cpSync(file, target);
  }
  writeFileSync(join(out, STAMP), `${new Date(started).toISOString()}\n`);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  renameSync(out, join(dir, 'dist'));
}

/**
 * Builds the stale packages (all of them with force). Returns the rebuilt packages' directories
 * relative to the repository root.
 */
export async function build({ force = false, quiet = false } = {}) {
  const stale = buildablePackages().filter((dir) => force || isStale(dir));
  if (stale.length === 0) return [];
  if (!quiet) process.stderr.write(`Building ${stale.length} package(s): src/ → dist/…\n`);
  const esbuild = await import('esbuild');
  // esbuild does the work in its own process; a few packages at once keep it busy.
  const queue = [...stale];
  const run = async () => {
    for (let dir = queue.shift(); dir; dir = queue.shift()) await buildPackage(esbuild, dir);
  };
  await Promise.all([run(), run(), run(), run()]);
  return stale.map((dir) => relative(root, dir));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!existsSync(join(root, 'node_modules/esbuild'))) {
    // A partial install (postinstall before the dependencies are in): the next start or test builds.
    process.exit(0);
  }
  await build({ force: process.argv.includes('--force') });
}
