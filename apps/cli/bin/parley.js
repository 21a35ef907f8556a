#!/usr/bin/env node
// The `parley` command: the compiled CLI in dist/ (scripts/build.mjs; built by `npm install`,
// `npm start`, `npm test` and `npm run build`). docs/decisions.md, "Build and typecheck".
import { existsSync } from 'node:fs';

if (Number(process.versions.node.split('.')[0]) < 24) {
  const { rerunWithNode24 } = await import('./olderNode.js');
  rerunWithNode24();
} else if (!existsSync(new URL('../dist/main.js', import.meta.url))) {
  process.stderr.write('parley: not built yet; run `npm run build` in the repository (or `npm start`).\n');
  process.exitCode = 1;
} else {
  // Stack traces point at the TypeScript sources (dist/ has linked source maps).
  process.setSourceMapsEnabled(true);
  await import('../dist/main.js');
}
