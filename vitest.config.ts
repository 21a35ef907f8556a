import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One run, one PostgreSQL (globalSetup); every spec file makes its own
// database in it. Spec files are named by kind: *.unit.spec.ts (no I/O),
// *.int.spec.ts (real PostgreSQL, Redis, NATS), *.e2e.spec.ts (whole processes).
const exclude = ['**/node_modules/**', '**/.parley/**', '**/.tools/**', '**/dist/**', '**/.tsbuild/**'];

// Spec files mostly wait (on PostgreSQL, on the processes they start): two at a time even on two cores,
// where vitest's default (cores - 1) would run them one by one.
const maxWorkers = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  // Tests run the TypeScript sources: the workspace packages' `@parley/source` export condition points
  // at src/ (Node, without it, loads the compiled dist/). Processes the tests spawn (the `parley` bin)
  // run dist/, which the global setup builds when it is stale. Not Vite's default server conditions:
  // vitest hands these to Node for the dependencies it does not transform, and `module` would load
  // packages' untranspiled ESM builds (@aws-sdk's dist-es, whose imports lack file extensions).
  ssr: { resolve: { conditions: ['@parley/source', 'node'] } },
  test: {
    maxWorkers,
    globalSetup: ['./scripts/vitestBuild.ts', './packages/platform/src/testing/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.unit.spec.ts'], exclude } },
      { extends: true, test: { name: 'int', include: ['**/*.int.spec.ts'], exclude } },
      { extends: true, test: { name: 'e2e', include: ['**/*.e2e.spec.ts'], exclude, testTimeout: 120_000 } },
    ],
  },
});
