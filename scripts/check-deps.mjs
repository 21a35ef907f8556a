// The dependency rules between the workspaces, checked by `npm test` (scripts/run.mjs) before the
// typecheck. Reads every source file's import specifiers (static, re-exports and literal dynamic
// imports) and fails on:
// - app-imported-by-package: a package or projection imports an app (@parley/api, @parley/worker, …);
// - projection-imports-http: a projection imports HTTP code (@parley/http, fastify, @fastify/*);
// - undeclared-dependency: a workspace imports a package its package.json does not declare (production
//   code: `dependencies` only; specs, testing/ helpers and tool configs: `devDependencies` too, and the
//   root's) — it would work only because npm hoists it;
// - unused-workspace-dependency: a declared @parley/* dependency that no file of the workspace imports;
// - foreign-internals: a relative import into another workspace (or out of the repository), or a
//   @parley/* subpath that the package does not export (a spec reaching into another workspace's src/).
//   Repository folders that are no workspace (scripts/lib) may be imported relatively;
// - production-imports-test-helper: code that ships imports a spec, a testing/ or spec/ helper, or a
//   package's ./testing export (test helpers are not in the build: scripts/build.mjs).
// Plain JavaScript with no dependencies: fast (0.2 s idle, about 1 s on a loaded machine).
// `node scripts/check-deps.mjs [root]`; `checkDependencies(root)` for the tests (scripts/checkDeps.unit.spec.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.tsbuild', '.parley', '.tools', '.git']);
const SOURCE = /\.(m?[jt]s|tsx)$/;
const APP_KINDS = new Set(['apps']);
const HTTP_MODULES = [/^@parley\/http(\/|$)/, /^fastify(\/|$)/, /^@fastify\//];
const builtins = new Set(builtinModules);
/** A specifier of test code: a spec, a testing/ or spec/ folder, a testing module or export. */
const TEST_SPECIFIER = /\.spec(\.[mc]?[jt]sx?)?$|(^|\/)(testing|spec)(\/|$)|[/.]testing(\.[mc]?[jt]sx?)?$/;

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** Every workspace of the repository at root: directory, kind (apps, packages, …) and manifest. */
function workspaces(root) {
  const found = [];
  for (const pattern of readJson(join(root, 'package.json')).workspaces ?? []) {
    const parent = pattern.replace(/\/\*$/, '');
    if (!existsSync(join(root, parent))) continue;
    for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
      const dir = join(root, parent, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, 'package.json'))) continue;
      found.push({ dir, kind: parent.split('/').pop(), pkg: readJson(join(dir, 'package.json')) });
    }
  }
  return found;
}

function sourceFiles(dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, found);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** The module specifiers a source file imports (comments removed first). */
export function importsOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const specifiers = [];
  const patterns = [
    /^\s*(?:import|export)\b[^'";()]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) specifiers.push(match[1]);
  return specifiers;
}

/** A spec, a testing/ or spec/ helper, or a tool's configuration: may use devDependencies. */
function isTestCode(workspaceDir, file) {
  const rel = relative(workspaceDir, file).split(sep);
  if (/(\.spec|(^|\.)testing)\.[mc]?[jt]sx?$/.test(rel.at(-1))) return true;
  if (rel.slice(0, -1).some((part) => part === 'testing' || part === 'spec')) return true;
  // Files beside package.json (vite.config.ts, …) are tooling, not what the package ships.
  return rel.length === 1 && !['server.js', 'index.js', 'index.ts'].includes(rel[0]);
}

const packageName = (specifier) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];

/** Whether `subpath` ('.', './testing', …) is one of the package's exports. */
function exported(pkg, subpath) {
  if (pkg.exports === undefined) return subpath === '.';
  if (typeof pkg.exports === 'string') return subpath === '.';
  return Object.hasOwn(pkg.exports, subpath);
}

/** Every broken rule in the repository at root: { rule, file, message }, files relative to root. */
export function checkDependencies(root) {
  const all = workspaces(root);
  const byName = new Map(all.map((w) => [w.pkg.name, w]));
  const rootPkg = readJson(join(root, 'package.json'));
  const rootDeps = new Set(Object.keys({ ...rootPkg.dependencies, ...rootPkg.devDependencies }));
  const violations = [];
  for (const ws of all) {
    const deps = new Set(Object.keys(ws.pkg.dependencies ?? {}));
    const devDeps = new Set(Object.keys(ws.pkg.devDependencies ?? {}));
    const used = new Set();
    for (const file of sourceFiles(ws.dir)) {
      const test = isTestCode(ws.dir, file);
      const where = relative(root, file);
      const report = (rule, message) => violations.push({ rule, file: where, message });
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        if (!test && TEST_SPECIFIER.test(specifier)) {
          report(
            'production-imports-test-helper',
            `'${specifier}' is test code; production code cannot use it`,
          );
        }
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          const owner = all.find((other) => !relative(other.dir, target).startsWith('..'));
          if (owner !== ws && (owner !== undefined || relative(root, target).startsWith('..'))) {
            const whose = owner ? `${owner.pkg.name}'s files` : 'the repository';
            report(
              'foreign-internals',
              `'${specifier}' reaches into ${whose}: import an export of its package`,
            );
          }
          continue;
        }
        if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0])) continue;
        const name = packageName(specifier);
        used.add(name);
        const target = byName.get(name);
        if (ws.kind !== 'apps' && target && APP_KINDS.has(target.kind)) {
          report('app-imported-by-package', `${ws.pkg.name} imports the app ${name}`);
        }
        if (ws.kind === 'projections' && HTTP_MODULES.some((re) => re.test(specifier))) {
          report('projection-imports-http', `${ws.pkg.name} imports HTTP code ('${specifier}')`);
        }
        if (name !== ws.pkg.name && !deps.has(name)) {
          if (devDeps.has(name) && !test) {
            report('undeclared-dependency', `production code imports ${name}, a devDependency only`);
          } else if (!devDeps.has(name) && !(test && rootDeps.has(name))) {
            report('undeclared-dependency', `${name} is not in ${ws.pkg.name}'s package.json`);
          }
        }
        if (target && specifier !== name && !exported(target.pkg, `.${specifier.slice(name.length)}`)) {
          report('foreign-internals', `'${specifier}' is not an export of ${name}`);
        }
      }
    }
    for (const name of [...deps, ...devDeps]) {
      if (byName.has(name) && !used.has(name)) {
        violations.push({
          rule: 'unused-workspace-dependency',
          file: relative(root, join(ws.dir, 'package.json')),
          message: `${ws.pkg.name} declares ${name} and never imports it`,
        });
      }
    }
  }
  return violations;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const violations = checkDependencies(root);
  for (const v of violations) process.stderr.write(`${v.file}: ${v.rule}: ${v.message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`dependency rules: ${violations.length} broken (scripts/check-deps.mjs)\n`);
    process.exit(1);
  }
}
