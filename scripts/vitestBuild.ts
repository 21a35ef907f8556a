// vitest globalSetup: processes the tests spawn (the `parley` bin) run the compiled dist/, so the run
// starts by building what is stale (scripts/build.mjs; a few milliseconds when nothing changed).
import { build } from './build.mjs';

const key = Symbol.for('parley.test.build');
const registry = globalThis as unknown as Record<symbol, Promise<string[]> | undefined>;

export default async function setup(): Promise<void> {
  // vitest calls a global setup once per project (unit, int, e2e): build once.
  registry[key] ??= build();
  await registry[key];
}
