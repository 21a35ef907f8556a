import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDependencies, importsOf } from './check-deps.mjs';

const script = fileURLToPath(new URL('./check-deps.mjs', import.meta.url));

type Files = Record<string, string | object>;

/** A repository laid out like Parley's (apps, packages, projections as workspaces), in a temporary folder. */
function fixtureRepo(files: Files): string {
  const root = mkdtempSync(join(tmpdir(), 'parley-check-deps-'));
  roots.push(root);
  const all: Files = {
    'package.json': { name: 'fixture', private: true, workspaces: ['packages/*', 'projections/*', 'apps/*'] },
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(
      join(root, path),
      typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`,
    );
  }
  return root;
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const manifest = (name: string, dependencies: Record<string, string> = {}, extra: object = {}) => ({
  name,
  exports: { '.': './src/index.ts', './testing': './src/testing/index.ts' },
  dependencies,
  ...extra,
});

/** A tree that keeps every rule: an app over a package over a projection-free core. */
const clean: Files = {
  'packages/core/package.json': manifest('@x/core'),
  'packages/core/src/index.ts': 'export const core = 1;\n',
  'packages/core/src/testing/index.ts': 'export const fixture = 2;\n',
  'packages/store/package.json': manifest('@x/store', { '@x/core': '*' }),
  'packages/store/src/index.ts': "import { core } from '@x/core';\nexport const store = core;\n",
  'projections/tally/package.json': manifest(
    '@x/tally',
    { '@x/store': '*' },
    { devDependencies: { '@x/core': '*' } },
  ),
  'projections/tally/src/index.ts': "export { store } from '@x/store';\n",
  'projections/tally/src/tally.spec.ts': "import { fixture } from '@x/core/testing';\nvoid fixture;\n",
  'apps/server/package.json': manifest('@x/server', { '@x/store': '*', '@x/tally': '*' }),
  'apps/server/src/index.ts':
    "import { store } from '@x/store';\nconst tally = await import('@x/tally');\nexport { store, tally };\n",
};

const rulesOf = (files: Files) =>
  checkDependencies(fixtureRepo({ ...clean, ...files })).map((v) => `${v.rule} ${v.file}`);

describe('the dependency rule check (scripts/check-deps.mjs)', () => {
  it('passes a tree that keeps the rules, and exits 0 on it', () => {
    const root = fixtureRepo(clean);
    expect(checkDependencies(root)).toEqual([]);
    expect(spawnSync(process.execPath, [script, root], { encoding: 'utf8' }).status).toBe(0);
  });

  it('fails on an app imported by a package, and exits 1 saying where', () => {
    const files = {
      'packages/store/package.json': manifest('@x/store', { '@x/core': '*', '@x/server': '*' }),
      'packages/store/src/wrong.ts': "import { store } from '@x/server';\nexport const wrong = store;\n",
    };
    expect(rulesOf(files)).toEqual(['app-imported-by-package packages/store/src/wrong.ts']);
    const run = spawnSync(process.execPath, [script, fixtureRepo({ ...clean, ...files })], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('packages/store/src/wrong.ts: app-imported-by-package');
  });

  it('fails on a projection importing HTTP code', () => {
    expect(
      rulesOf({
        'projections/tally/package.json': manifest('@x/tally', { '@x/store': '*', fastify: '*' }),
        'projections/tally/src/route.ts':
          "import type { FastifyInstance } from 'fastify';\nexport type A = FastifyInstance;\n",
      }),
    ).toContain('projection-imports-http projections/tally/src/route.ts');
  });

  it('fails on an undeclared workspace dependency, and on production code using a devDependency', () => {
    expect(rulesOf({ 'packages/store/src/hoisted.ts': "export { tallyOf } from '@x/tally';\n" })).toEqual([
      'undeclared-dependency packages/store/src/hoisted.ts',
    ]);
    expect(
      rulesOf({
        'projections/tally/src/core.ts': "import { core } from '@x/core';\nexport const c = core;\n",
      }),
    ).toEqual(['undeclared-dependency projections/tally/src/core.ts']);
  });

  it("fails on a spec importing another workspace's internals", () => {
    expect(
      rulesOf({
        'apps/server/src/deep.spec.ts':
          "import { fixture } from '../../../packages/core/src/testing/index.js';\n",
        'apps/server/src/subpath.spec.ts': "import { x } from '@x/store/src/index.js';\n",
      }).sort(),
    ).toEqual([
      'foreign-internals apps/server/src/deep.spec.ts',
      'foreign-internals apps/server/src/subpath.spec.ts',
    ]);
  });

  it('fails on a declared workspace dependency that nothing imports', () => {
    expect(
      rulesOf({
        'apps/server/package.json': manifest('@x/server', {
          '@x/store': '*',
          '@x/tally': '*',
          '@x/core': '*',
        }),
      }),
    ).toEqual(['unused-workspace-dependency apps/server/package.json']);
  });

  it('fails on production code importing a test helper', () => {
    expect(
      rulesOf({
        'packages/store/src/leak.ts':
          "import { fixture } from '@x/core/testing';\nexport const leak = fixture;\n",
      }),
    ).toEqual(['production-imports-test-helper packages/store/src/leak.ts']);
  });

  it('reads static, re-exported, side-effect and literal dynamic imports, not comments', () => {
    const text = [
      "import a from 'a';",
      'import {',
      '  b,',
      "} from 'b';",
      "export * from 'c';",
      "import 'd';",
      "const e = await import('e');",
      "// import x from 'commented';",
      "/* import y from 'block'; */",
      "const s = 'from \\'not-an-import\\'';",
    ].join('\n');
    expect(importsOf(text).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
