import { randomInt } from 'node:crypto';
import { storedCallerNumberKey } from '@parley/analytics';
import { createAuthStore } from '@parley/auth';
import { ingest, MAX_INGEST_ITEMS } from '@parley/ingest';
import { createMediaStorage } from '@parley/media';
import { ParleyError } from '@parley/platform';
import { createProgress } from '../progress.js';
import {
  CONSOLE_SCOPES,
  createDemoKeys,
  type DemoKeys,
  type DemoProject,
  ensureDemoProject,
} from '../seed/demoProject.js';
import { demoRecordingPlan, type RecordingShowcase, seedDemoRecordings } from '../seed/demoRecordings.js';
import { demoCallConversation } from '../seed/demoSessions.js';
import { ITEMS_PER_SESSION_GUESS, ingestDemo } from '../seed/ingestDemo.js';
import { createRandom } from '../seed/random.js';
import { apiBaseUrl, recordingsCurl, sessionsCurl } from '../seed/sessionsCurl.js';
import { openSystem, type System, UsageError } from '../system.js';
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
  /** Demo calls with recordings (beyond `sessions`), one per state of the recordings API. */
  recordings: {
    events: number;
    files: number;
    bytes: number;
    sessions: Array<Pick<RecordingShowcase, 'sessionId' | 'status' | 'reasons' | 'shows'>>;
  };
}

function describeDemo(demo: DemoProject): string {
  const tenant = `${demo.reused.tenant ? 'reused' : 'created'} demo tenant ${demo.tenant.id}`;
  const project = `${demo.reused.project ? 'reused' : 'created'} project ${demo.project.slug} (${demo.project.id})`;
  return `${tenant}, ${project}`;
}

/** Everything one seed run made, for the command's output and for `parley start`'s first run. */
export interface SeedRun {
  demo: DemoProject;
  keys: DemoKeys;
  result: Awaited<ReturnType<typeof ingestDemo>>;
  recorded: Awaited<ReturnType<typeof seedDemoRecordings>>;
  showcases: RecordingShowcase[];
}

/**
 * Makes (or reuses) a demo tenant and project, its API keys (one of them the console's), and N
 * sessions of facts submitted through `ingest()`: the code path of POST /api/v1/ingest, with the
 * same caller-number normaliser, so the seed exercises what production ingest does. Then a dozen
 * recorded calls, one per state of the recordings API, each with its conversation and trace.
 */
export async function seedDemo(
  system: System,
  options: Pick<SeedOptions, 'sessions' | 'projectSlug' | 'randomSeed'> & {
    onDemo?: (demo: DemoProject) => void;
  },
): Promise<SeedRun> {
  const auth = createAuthStore(system.pool);
  let demo: DemoProject;
  let keys: DemoKeys;
  try {
    demo = await ensureDemoProject(auth, options.projectSlug);
    keys = await createDemoKeys(auth, demo.project.id);
  } catch (err) {
    if (err instanceof ParleyError && err.status < 500) throw new UsageError(err.message);
    throw err;
  }
  options.onDemo?.(demo);
  const scope = { tenantId: demo.tenant.id, projectId: demo.project.id };
  const deps = { store: system.store, pool: system.pool, normaliseCallerNumber: storedCallerNumberKey };
  const seed = options.randomSeed ?? randomInt(0xffff_ffff);
  const now = Date.now();
  const progress = createProgress('seed', options.sessions * ITEMS_PER_SESSION_GUESS);
  let result: SeedRun['result'];
  try {
    result = await ingestDemo(
      { sessions: options.sessions, seed, now },
      (items) => ingest(deps, scope, items),
      progress,
    );
  } finally {
    progress.stop();
  }
  // Call recordings: facts appended as the telephony intake and media fetcher would, and their
  // audio written to the configured media storage (a few seconds: the audio is synthesised).
  process.stderr.write('seed: recording the demo calls (their WAV audio, conversations and traces)…\n');
  const plan = demoRecordingPlan({ projectId: demo.project.id, seed, now });
  const storage = createMediaStorage(system.config);
  const recorded = await seedDemoRecordings({ store: system.store, storage }, scope, plan);
  // The recorded calls' conversations, so one session shows transcript, trace and recordings.
  const talk = createRandom(seed ^ 0x5eed_ca11);
  const conversation = plan.showcases.flatMap((s) =>
    demoCallConversation(talk, {
      sessionId: s.sessionId,
      startedAt: s.startedAt,
      agentName: 'support-assistant',
    }),
  );
  for (let i = 0; i < conversation.length; i += MAX_INGEST_ITEMS) {
    const response = await ingest(deps, scope, conversation.slice(i, i + MAX_INGEST_ITEMS));
    result.items += response.accepted + response.rejected;
    result.accepted += response.accepted;
    result.rejected += response.rejected;
  }
  return { demo, keys, result, recorded, showcases: plan.showcases };
}

export async function seedCommand(ctx: CliContext, options: SeedOptions): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 4 });
  let run: SeedRun;
  try {
    run = await seedDemo(system, {
      ...options,
      onDemo: (demo) => {
        if (options.json) ctx.err.write(`${describeDemo(demo)}\n`);
      },
    });
  } finally {
    await system.close();
  }
  const { demo, keys, result, recorded, showcases } = run;

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
    recordings: {
      ...recorded,
      sessions: showcases.map(({ sessionId, status, reasons, shows }) => ({
        sessionId,
        status,
        reasons,
        shows,
      })),
    },
  };
  if (options.json) {
    ctx.out.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const base = apiBaseUrl(ctx.config);
  const lines = [
    `${describeDemo(demo)}.`,
    `Ingested ${summary.sessions} sessions: ${summary.items} items, ${summary.accepted} accepted, ${summary.rejected} rejected.`,
    '',
    'API keys (shown only now: Parley keeps only their hashes):',
    `  analytics.read   ${keys.analytics}`,
    `  ingest.write     ${keys.ingest}`,
    `  recordings.read  ${keys.recordings}`,
    `  console          ${keys.console}   (${CONSOLE_SCOPES.join(', ')})`,
    '',
    `The console: ${base}/console/ (sign in with the console key).`,
    '',
    `Recorded ${showcases.length} demo calls (${recorded.files} WAV files), one per state of the recordings API:`,
    ...showcases.map((s) => `  ${s.sessionId}  ${s.status.padEnd(17)} ${s.shows}`),
    '',
    "For the README's commands, in your shell:",
    `  export PARLEY_URL=${base} PROJECT=${summary.projectId}`,
    `  export ANALYTICS_KEY=${keys.analytics} RECORDINGS_KEY=${keys.recordings}`,
    `  export SESSION=${showcases[0]!.sessionId}`,
    '',
    'The sessions of the last 7 days (the worker projects them within moments of `parley start`):',
    `  ${sessionsCurl('$PARLEY_URL', '$PROJECT', '$ANALYTICS_KEY')}`,
    '',
    'The recordings of the first call (play a returned `url` as is, no key: it is a bearer secret):',
    `  ${recordingsCurl('$PARLEY_URL', '$PROJECT', '$RECORDINGS_KEY', '$SESSION')}`,
    '',
  ];
  ctx.out.write(lines.join('\n'));
}
