import { randomInt } from 'node:crypto';
import { storedCallerNumberKey } from '@parley/analytics';
import { createAuthStore } from '@parley/auth';
import { ingest } from '@parley/ingest';
import { ParleyError } from '@parley/platform';
import { InvalidArgumentError } from 'commander';
import { createProgress } from '../progress.js';
import { createDemoKeys, type DemoKeys, type DemoProject, ensureDemoProject } from '../seed/demoProject.js';
import { ITEMS_PER_SESSION_GUESS, ingestDemo } from '../seed/ingestDemo.js';
import { apiBaseUrl, sessionsCurl } from '../seed/sessionsCurl.js';
import { openSystem, UsageError } from '../system.js';
import type { CliContext } from './context.js';

export interface SeedOptions {
  sessions: number;
  projectSlug: string;
  randomSeed?: number;
  json?: boolean;
}

/** What `parley seed --json` prints: everything a script needs to call the APIs. */
export interface SeedSummary {
  tenantId: string;
  projectId: string;
  projectSlug: string;
  keys: DemoKeys;
  sessions: number;
  items: number;
  accepted: number;
  rejected: number;
}

/** `--random-seed`: a whole number from 0 to 2^32 - 1. */
export function parseRandomSeed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) {
    throw new InvalidArgumentError('must be a whole number from 0 to 4294967295');
  }
  return n;
}

function describeDemo(demo: DemoProject): string {
  const tenant = `${demo.reused.tenant ? 'reused' : 'created'} demo tenant ${demo.tenant.id}`;
  const project = `${demo.reused.project ? 'reused' : 'created'} project ${demo.project.slug} (${demo.project.id})`;
  return `${tenant}, ${project}`;
}

/**
 * Makes (or reuses) a demo tenant and project, three API keys, and N sessions of facts submitted
 * through `ingest()`: the code path of POST /api/v1/ingest, with the same caller-number
 * normaliser, so the seed exercises what production ingest does.
 */
export async function seedCommand(ctx: CliContext, options: SeedOptions): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 4 });
  let demo: DemoProject;
  let keys: DemoKeys;
  let result: Awaited<ReturnType<typeof ingestDemo>>;
  try {
    const auth = createAuthStore(system.pool);
    try {
      demo = await ensureDemoProject(auth, options.projectSlug);
      keys = await createDemoKeys(auth, demo.project.id);
    } catch (err) {
      if (err instanceof ParleyError && err.status < 500) throw new UsageError(err.message);
      throw err;
    }
    if (options.json) ctx.err.write(`${describeDemo(demo)}\n`);
    const scope = { tenantId: demo.tenant.id, projectId: demo.project.id };
    const deps = { store: system.store, pool: system.pool, normaliseCallerNumber: storedCallerNumberKey };
    const progress = createProgress('seed', options.sessions * ITEMS_PER_SESSION_GUESS);
    try {
      result = await ingestDemo(
        { sessions: options.sessions, seed: options.randomSeed ?? randomInt(0xffff_ffff), now: Date.now() },
        (items) => ingest(deps, scope, items),
        progress,
      );
    } finally {
      progress.stop();
    }
  } finally {
    await system.close();
  }

  if (result.rejected > 0) {
    // The generator should only make valid facts: a rejection is a bug worth a non-zero exit.
    ctx.err.write(`parley: ${result.rejected} items were rejected, e.g. ${result.rejections.join('; ')}\n`);
    process.exitCode = 1;
  }
  const summary: SeedSummary = {
    tenantId: demo.tenant.id,
    projectId: demo.project.id,
    projectSlug: demo.project.slug,
    keys,
    sessions: options.sessions,
    items: result.items,
    accepted: result.accepted,
    rejected: result.rejected,
  };
  if (options.json) {
    ctx.out.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const lines = [
    `${describeDemo(demo)}.`,
    `Ingested ${summary.sessions} sessions: ${summary.items} items, ${summary.accepted} accepted, ${summary.rejected} rejected.`,
    '',
    'API keys (shown only now: Parley keeps only their hashes):',
    `  analytics.read   ${keys.analytics}`,
    `  ingest.write     ${keys.ingest}`,
    `  recordings.read  ${keys.recordings}`,
    '',
    'The sessions of the last 7 days (the worker projects them within moments of `parley start`):',
    `  ${sessionsCurl(apiBaseUrl(ctx.config), summary.projectId, keys.analytics)}`,
    '',
  ];
  ctx.out.write(lines.join('\n'));
}
