#!/usr/bin/env node
// The `parley` command. Parley's packages are TypeScript sources (internal
// "just-in-time" packages), so the CLI registers tsx's loader before loading
// them; see docs/decisions.md ("Running TypeScript without a build step").
if (Number(process.versions.node.split('.')[0]) < 24) {
  const { rerunWithNode24 } = await import('./olderNode.js');
  rerunWithNode24();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
