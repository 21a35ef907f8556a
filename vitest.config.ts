import { defineConfig } from 'vitest/config';

// One run, one PostgreSQL (globalSetup); every spec file makes its own
// database in it. Spec files are named by kind: *.unit.spec.ts (no I/O),
// *.int.spec.ts (real PostgreSQL, Redis, NATS), *.e2e.spec.ts (whole processes).
const exclude = ['**/node_modules/**', '**/.parley/**'];

export default defineConfig({
  test: {
    globalSetup: ['./packages/platform/src/testing/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.unit.spec.ts'], exclude } },
      { extends: true, test: { name: 'int', include: ['**/*.int.spec.ts'], exclude } },
      { extends: true, test: { name: 'e2e', include: ['**/*.e2e.spec.ts'], exclude, testTimeout: 120_000 } },
    ],
  },
});
