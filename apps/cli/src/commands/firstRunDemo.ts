import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAuthStore } from '@parley/auth';
import { DEMO_FEATURE } from '../seed/demoProject.js';
import type { System } from '../system.js';
import { consoleKeyFile } from './context.js';
import { seedDemo } from './seed.js';

/** Sessions the first `parley start` seeds: enough for every filter and chart to show something. */
export const FIRST_RUN_SESSIONS = 200;

export interface FirstRunDemo {
  /** The file holding the console key, when there is one. */
  keyFile: string | null;
  /** The demo project's id, when there is a demo project. */
  projectId: string | null;
  /** True when this start seeded the demo. */
  seeded: boolean;
}

/**
 * The embedded default's first start (no tenant yet) seeds the demo project, so that the console
 * shows something at once, and keeps its console key in `<PARLEY_DATA_DIR>/console-key` (mode 600;
 * Parley itself keeps only key hashes). Later starts just point at the file. Never with
 * DATABASE_URL: a real deployment gets no demo data.
 */
export async function firstRunDemo(
  system: System,
  dataDir: string,
  out: NodeJS.WritableStream,
  /** Called before a first start's seeding begins (the banner, so Parley's address shows at once). */
  beforeSeeding: () => void = () => {},
): Promise<FirstRunDemo> {
  const file = consoleKeyFile(dataDir);
  if (system.embedded === null) return { keyFile: null, projectId: null, seeded: false };
  const auth = createAuthStore(system.pool);
  const tenants = await auth.listTenants();
  if (tenants.length > 0) {
    const demo = tenants.find((t) => t.features[DEMO_FEATURE] === true);
    const project = demo ? await auth.findProject('demo', { tenantId: demo.id }) : null;
    return {
      keyFile: existsSync(file) && readFileSync(file, 'utf8').trim() ? file : null,
      projectId: project?.id ?? null,
      seeded: false,
    };
  }
  beforeSeeding();
  out.write(
    `  First start: creating the demo project (${FIRST_RUN_SESSIONS} sessions, 12 recorded calls)…\n`,
  );
  const run = await seedDemo(system, { sessions: FIRST_RUN_SESSIONS, projectSlug: 'demo' });
  mkdirSync(resolve(dataDir), { recursive: true });
  writeFileSync(file, `${run.keys.console}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { keyFile: file, projectId: run.demo.project.id, seeded: true };
}
