/**
 * `npm run bench`: the log's append throughput against a raw INSERT baseline, rebuild throughput
 * (the demo projection, and llm-ledger), head-to-read lag, the read models' queries at 1,000,000
 * sessions and 5,000,000 ledger rows, the sessions route against a bare Fastify route, ingest
 * over HTTP, chat turns, the trace CSV export, channels (WhatsApp-shaped webhooks and the worker)
 * and the HTTP async channel (submit, callbacks, a receiver that goes down and comes back). Ratios are measured in one run, since machines are noisy. Knobs (docs/performance.md):
 * BENCH_SECONDS, BENCH_REBUILD_EVENTS, BENCH_BATCH, the BENCH_QUERY_*, BENCH_LEDGER_EVENTS,
 * BENCH_API_*, BENCH_INGEST_*, BENCH_CHAT_*, BENCH_CHANNELS_*, BENCH_HTTP_ASYNC_* ones (_SECONDS, _CLIENTS,
 * _RATE, _TEAM, _POLL_SECONDS, _DOWN_SECONDS, _SCHEDULE), BENCH_TRACES_EXPORT_ROWS, and BENCH_ONLY (one section or a comma-separated list: `append` (BENCH_APPEND_WRITERS, default 1,8,32), `peer-read` (BENCH_PEER_READ_EVENTS), `rebuild-sessions` (BENCH_REBUILD_SESSION_EVENTS, BENCH_REBUILD_INGEST_RATE),
 * `rebuild`, `lag`, `queries`, `rebuild-ledger`, `ledger-stats` (only when named; BENCH_LEDGER_STATS_RUNS), `api`, `ingest` (BENCH_INGEST_PROJECTIONS=process|inline, BENCH_INGEST_PROJECTION_BATCH: see ./ingestRunner.ts; BENCH_INGEST_TRACE=<file>: the projections process writes a line per applied batch, `ms projection events transaction-ms`; BENCH_INGEST_CPU_PROF=<dir>: a CPU profile of it), `chat`, `tool-turn` (BENCH_TOOL_TURNS), `traces-export`, `channels`,
 * `http-async`, `nats`, `voice` (both voice sections), `voice-pipeline` (BENCH_VOICE_UTTERANCES, BENCH_VOICE_PER_CALL, BENCH_VOICE_LATENCY_TARGET_MS) or `voice-realtime` (BENCH_VOICE_REALTIME_UTTERANCES, BENCH_VOICE_REALTIME_MODEL_MS); the NATS relay's section uses NATS_URL, default nats://127.0.0.1:4222, and
 * BENCH_NATS_EVENTS, BENCH_NATS_SECONDS). BENCH_SQL_HISTOGRAM=1 also prints, for each phase metered per
 * request, its SQL statements counted by text (stats.ts meterProcess); BENCH_CPU_PROFILE=<dir> writes a V8 CPU
 * profile of each such phase there. Results go to stdout as Markdown, progress to stderr.
 */
import { cpus, loadavg } from 'node:os';
import {
  DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
  formatRetrySchedule,
  parseRetrySchedule,
} from '@parley/channels';
import { EXPORT_BATCH_ROWS } from '@parley/projection-traces';
import { type ApiRunResult, benchApi } from './api.js';
import { benchAppend } from './append.js';
import { benchChannels } from './channels.js';
import { benchChat } from './chat.js';
import { openBenchDatabase } from './database.js';
import { benchHttpAsync } from './httpAsync.js';
import { benchIngest, type IngestBenchResult } from './ingest.js';
import type { ProjectionsMode } from './ingestRunner.js';
import { benchLag } from './lag.js';
import { benchLedgerStats } from './ledgerStats.js';
import { benchNats } from './nats.js';
import { benchPeerRead } from './peerRead.js';
import { benchQueries } from './queries.js';
import type { TimedRebuild } from './rebuild.js';
import { benchRebuild } from './rebuild.js';
import { benchLedgerRebuild } from './rebuildLedger.js';
import { benchSessionRebuild } from './rebuildSessions.js';
import { benchToolTurn } from './toolTurn.js';
import { benchTracesExport } from './tracesExport.js';
import { benchVoicePipeline } from './voicePipeline.js';
import { benchVoiceRealtime } from './voiceRealtime.js';

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};

const durationMs = num('BENCH_SECONDS', 2) * 1000;
const rebuildEvents = num('BENCH_REBUILD_EVENTS', 1_000_000);
const batchSize = num('BENCH_BATCH', 100);
const appendWriters = (process.env.BENCH_APPEND_WRITERS ?? '1,8,32').split(',').map(Number);
const only = process.env.BENCH_ONLY;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (line: string) => process.stderr.write(`${line}\n`);

async function appendSection(): Promise<string[]> {
  const db = await openBenchDatabase(40);
  try {
    log(`append: ${durationMs / 1000} s per contender and round…`);
    const rows = await benchAppend(
      db.pool,
      db.url,
      { durationMs, batchSize, writers: appendWriters, rounds: num('BENCH_APPEND_ROUNDS', 3) },
      (r) =>
        log(
          `  ${r.mode} x${r.writers}: ${fmt(r.appendPerSecond)}/s vs raw ${fmt(r.rawPerSecond)}/s (${r.ratio.toFixed(2)}), Emmett ${fmt(r.peerPerSecond)}/s (${r.peerRatio.toFixed(2)})`,
        ),
    );
    return [
      '### Append throughput (events/s) vs a raw multi-row INSERT of the same rows into a plain table, and vs Emmett',
      '',
      `Medians of ${num('BENCH_APPEND_ROUNDS', 3)} interleaved rounds of ${durationMs / 1000} s per contender (the order rotates each round); each ratio is the median of the rounds' ratios.`,
      '',
      '| mode | events per append | writers | Parley append | raw INSERT | Emmett | Parley ÷ raw | Parley ÷ Emmett |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.mode} | ${r.batchSize} | ${r.writers} | ${fmt(r.appendPerSecond)} | ${fmt(r.rawPerSecond)} | ${fmt(r.peerPerSecond)} | ${r.ratio.toFixed(2)} | ${r.peerRatio.toFixed(2)} |`,
      ),
      '',
    ];
  } finally {
    await db.close();
  }
}

async function peerReadSection(): Promise<string[]> {
  const db = await openBenchDatabase(8);
  try {
    const events = num('BENCH_PEER_READ_EVENTS', 200_000);
    log(`peer-read: seeding ${fmt(events)} events into Parley and into Emmett…`);
    const r = await benchPeerRead(db.pool, db.url, { events, batchSize: 1000 }, log);
    const row = (name: string, x: { parley: number; peer: number }) =>
      `| ${name} | ${fmt(x.parley)} | ${fmt(x.peer)} | ${(x.parley / x.peer).toFixed(2)} |`;
    return [
      `### Reading the log: Parley vs Emmett, ${fmt(r.events)} events each (events/s)`,
      '',
      `The same events in both logs (seeded in 1,000-event appends by 4 writers: Parley ${r.seedSeconds.parley.toFixed(1)} s, Emmett ${r.seedSeconds.peer.toFixed(1)} s). ${fmt(r.batchSize)}-event batches; Parley runs right before Emmett.`,
      '',
      '| scenario | Parley | Emmett | Parley ÷ Emmett |',
      '|---|---|---|---|',
      row('read the whole log (readAll / readMessagesBatch)', r.readAll),
      row('catch-up from the start, count per type (subscribeAll / consumer reactor)', r.catchUp),
      '',
    ];
  } finally {
    await db.close();
  }
}

async function rebuildSection(): Promise<string[]> {
  // A database of its own, so the rebuild replays exactly the events it seeded.
  const db = await openBenchDatabase(8);
  try {
    log(`rebuild: seeding ${fmt(rebuildEvents)} events…`);
    const r = await benchRebuild(db.pool, { events: rebuildEvents }, log);
    return [
      '### Rebuild of the event-counts projection from the start of the log',
      '',
      '| events | rebuild time | events/s (replay) | events/s (overall, incl. swap) | target |',
      '|---|---|---|---|---|',
      `| ${fmt(r.events)} | ${r.rebuildSeconds.toFixed(1)} s | ${fmt(r.replayEventsPerSecond)} | ${fmt(r.overallEventsPerSecond)} | >= 20,000 |`,
      '',
      `(seeding the log through the append path took ${r.seedSeconds.toFixed(1)} s: ${fmt(r.events / r.seedSeconds)} events/s in 1,000-event appends by 4 writers)`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function lagSection(): Promise<string[]> {
  const db = await openBenchDatabase(12);
  try {
    const shape = { seconds: num('BENCH_LAG_SECONDS', 15), writers: 4, batch: 10, intervalMs: 40 };
    log(
      `lag: ${shape.writers} writers x ${shape.batch} events every ${shape.intervalMs} ms for ${shape.seconds} s…`,
    );
    const r = await benchLag(db.pool, db.url, shape);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      '### Head-to-read lag under steady ingest (append committed → projection applied)',
      '',
      '| ingest | appends | p50 | p95 | p99 | max | target p99 |',
      '|---|---|---|---|---|---|---|',
      `| ${fmt(r.eventsPerSecond)} events/s | ${fmt(r.appends)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | < 250 ms |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function natsSection(): Promise<string[]> {
  const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  const db = await openBenchDatabase(12);
  try {
    const shape = {
      natsUrl,
      events: num('BENCH_NATS_EVENTS', 50_000),
      seconds: num('BENCH_NATS_SECONDS', 10),
      writers: 4,
      batch: 10,
      intervalMs: 40,
    };
    log(`nats: ${natsUrl}, catch-up of ${shape.events} events, then ${shape.seconds} s of steady ingest…`);
    let r: Awaited<ReturnType<typeof benchNats>>;
    try {
      r = await benchNats(db.pool, db.url, shape, log);
    } catch (err) {
      if (!/CONNECTION_REFUSED|ECONNREFUSED/i.test(String((err as Error)?.message ?? err))) throw err;
      log(`nats: skipped, no NATS at ${natsUrl}`);
      return ['### NATS relay', '', `Skipped: no NATS server at ${natsUrl} (set NATS_URL).`, ''];
    }
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      '### NATS relay: events/s relayed and head-to-NATS lag (append committed → message at a JetStream consumer)',
      '',
      '| catch-up events | catch-up time | events/s relayed | steady ingest | messages | p50 | p95 | p99 | max |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${fmt(r.events)} | ${r.catchUpSeconds.toFixed(2)} s | ${fmt(r.eventsPerSecond)} | ${fmt(r.steadyEventsPerSecond)} events/s | ${fmt(r.messages)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function queriesSection(): Promise<string[]> {
  const db = await openBenchDatabase(4);
  try {
    const shape = {
      sessions: num('BENCH_QUERY_SESSIONS', 1_000_000),
      calls: num('BENCH_QUERY_CALLS', 5_000_000),
      runs: num('BENCH_QUERY_RUNS', 200),
      wideRuns: num('BENCH_QUERY_WIDE_RUNS', 20),
      // Per scenario; one that needs more for its runs is over its target anyway.
      budgetMs: num('BENCH_QUERY_SCENARIO_SECONDS', 15) * 1000,
    };
    log(`queries: loading ${fmt(shape.sessions)} sessions and ${fmt(shape.calls)} ledger rows…`);
    const r = await benchQueries(db.pool, shape, log);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      `### Read-model queries at ${fmt(r.sessions)} sessions and ${fmt(r.calls)} ledger rows`,
      '',
      `Data written straight into the live generation's tables with set-based SQL, indexes built after, VACUUM ANALYZE (${r.loadSeconds.toFixed(0)} s). Project \`bench-big\` (60% of the rows).`,
      '',
      '| query | filter | limit | matches (total) | rows returned | runs | p50 | p99 | max | target |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...r.rows.map(
        (q) =>
          `| ${q.query} | ${q.scenario} | ${fmt(q.limit)} | ${fmt(q.total)} | ${fmt(q.returned)} | ${q.latency.runs} | ${ms(q.latency.p50)} | ${ms(q.latency.p99)} | ${ms(q.latency.max)} | ${q.limit === 100 ? 'p99' : 'each'} < ${q.targetMs} ms |`,
      ),
      '',
    ];
  } finally {
    await db.close();
  }
}

async function ledgerStatsSection(): Promise<string[]> {
  const db = await openBenchDatabase(4);
  try {
    const shape = {
      sessions: num('BENCH_QUERY_SESSIONS', 1_000_000),
      calls: num('BENCH_QUERY_CALLS', 5_000_000),
      runs: num('BENCH_LEDGER_STATS_RUNS', 20),
      budgetMs: num('BENCH_QUERY_SCENARIO_SECONDS', 15) * 1000,
    };
    log(`ledger-stats: loading ${fmt(shape.sessions)} sessions and ${fmt(shape.calls)} ledger rows…`);
    const r = await benchLedgerStats(db.pool, shape, log);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      `### Ledger time series (GET …/llm-ledger/stats) at ${fmt(r.calls)} ledger rows`,
      '',
      `The queries section's data (${r.loadSeconds.toFixed(0)} s to load); project \`bench-big\` (60% of the rows). One statement: date_bin buckets, percentile_cont p50/p95 of latency, per group and bucket and per group.`,
      '',
      '| window and grouping | calls aggregated | series | points | runs | p50 | p99 | max | target p99 |',
      '|---|---|---|---|---|---|---|---|---|',
      ...r.rows.map(
        (q) =>
          `| ${q.scenario} | ${fmt(q.calls)} | ${q.series} | ${fmt(q.points)} | ${q.latency.runs} | ${ms(q.latency.p50)} | ${ms(q.latency.p99)} | ${ms(q.latency.max)} | < ${fmt(q.targetMs)} ms |`,
      ),
      '',
    ];
  } finally {
    await db.close();
  }
}

async function rebuildLedgerSection(): Promise<string[]> {
  const db = await openBenchDatabase(8);
  try {
    const events = num('BENCH_LEDGER_EVENTS', 100_000);
    log(`rebuild-ledger: seeding ${fmt(events)} LlmCallRecorded events…`);
    const r = await benchLedgerRebuild(db.pool, { events }, log);
    return [
      '### Rebuild of the llm-ledger projection from the start of the log',
      '',
      '| LlmCallRecorded events | with payload | rebuild time | events/s (replay) | events/s (overall, incl. indexes and swap) | target |',
      '|---|---|---|---|---|---|',
      `| ${fmt(r.events)} | ${fmt(r.withPayload)} | ${r.rebuildSeconds.toFixed(1)} s | ${fmt(r.replayEventsPerSecond)} | ${fmt(r.overallEventsPerSecond)} | >= 20,000 |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function rebuildSessionsSection(): Promise<string[]> {
  const db = await openBenchDatabase(12);
  try {
    const events = num('BENCH_REBUILD_SESSION_EVENTS', 200_000);
    const ingestRate = num('BENCH_REBUILD_INGEST_RATE', 2_000);
    log(`rebuild-sessions: seeding ${fmt(events)} facts through ingest…`);
    const r = await benchSessionRebuild(db.pool, { events, ingestRate }, log);
    const row = (name: string, x: TimedRebuild, target: string) =>
      `| ${name} | ${fmt(x.events)} | ${x.rebuildSeconds.toFixed(1)} s | ${fmt(x.replayEventsPerSecond)} | ${fmt(x.overallEventsPerSecond)} | ${target} |`;
    return [
      '### Rebuilds of session-summaries and llm-ledger, alone and during ingest',
      '',
      `${fmt(r.events)} facts seeded through the ingest path (sessions of 14; ${r.seedSeconds.toFixed(1)} s). During ingest: appends through ingest at ${fmt(r.duringIngest.ingestRate)} facts/s (${fmt(r.duringIngest.ingested)} facts) for the whole rebuild.`,
      '',
      '| rebuild | events replayed | time | events/s (replay) | events/s (overall) | target |',
      '|---|---|---|---|---|---|',
      row('session-summaries, alone', r.sessionSummaries, '>= 50,000'),
      row('llm-ledger, alone', r.llmLedger, '>= 50,000'),
      row('session-summaries, during ingest', r.duringIngest, '>= 25,000'),
      '',
    ];
  } finally {
    await db.close();
  }
}

async function apiSection(): Promise<string[]> {
  const db = await openBenchDatabase(12);
  try {
    const shape = {
      sessions: num('BENCH_API_SESSIONS', 1_000_000),
      seconds: num('BENCH_API_SECONDS', 10),
      connections: num('BENCH_API_CONNECTIONS', 16),
    };
    log(`api: loading ${fmt(shape.sessions)} sessions…`);
    const r = await benchApi(db.pool, shape, log);
    const row = (scenario: string, name: string, x: ApiRunResult) =>
      `| ${scenario} | ${name} | ${fmt(x.requestsPerSecond)} | ${x.p50} ms | ${x.p99} ms | ${x.non2xx + x.errors} |`;
    return [
      '### GET …/sessions through the real app vs a bare Fastify route serving the same JSON',
      '',
      `100-row pages of the big project, ${fmt(r.sessions)} sessions in the read model; autocannon in a child process, ${r.connections} connections, ${r.seconds} s per run, each bare route right before its sessions route.`,
      '',
      '| page | server | requests/s | p50 | p99 | errors / non-2xx |',
      '|---|---|---|---|---|---|',
      ...r.scenarios.flatMap((s) => [
        row(
          `${s.scenario} (${fmt(s.total)} matches, ${fmt(s.bodyBytes)} bytes)`,
          'bare Fastify route',
          s.bare,
        ),
        row('', 'sessions route as deployed (auth, rate limit, freshness, page cache)', s.route),
        `| | **ratio** | **${s.ratio.toFixed(2)}** | | | target >= 0.4 |`,
        row('', 'sessions route without the page cache (every request reads total and page)', s.uncached),
        `| | ratio without the cache | ${s.uncachedRatio.toFixed(2)} | | | |`,
      ]),
      '',
    ];
  } finally {
    await db.close();
  }
}

function cpuPerFact(t: Pick<IngestBenchResult['throughput'], 'cpu' | 'factsPerSecond' | 'seconds'>): string {
  const facts = t.factsPerSecond * t.seconds;
  const us = (ms: number | null) => (ms === null ? '–' : ((ms * 1000) / facts).toFixed(1));
  return [t.cpu.benchMs, t.cpu.projectionsMs, t.cpu.postgresMs, t.cpu.postgresProjectionsMs]
    .map(us)
    .join(' / ');
}

function projectionsMode(value: string): ProjectionsMode {
  if (value === 'process' || value === 'inline') return value;
  throw new Error('BENCH_INGEST_PROJECTIONS must be process or inline');
}

async function ingestSection(): Promise<string[]> {
  const db = await openBenchDatabase(16);
  try {
    const shape = {
      seconds: num('BENCH_INGEST_SECONDS', 20),
      clients: num('BENCH_INGEST_CLIENTS', 4),
      batch: 500,
      lagSeconds: num('BENCH_INGEST_LAG_SECONDS', 300),
      lagBatch: num('BENCH_INGEST_LAG_BATCH', 125),
      lagIntervalMs: num('BENCH_INGEST_LAG_INTERVAL_MS', 100),
      projections: projectionsMode(process.env.BENCH_INGEST_PROJECTIONS ?? 'process'),
      // The worker's default PROJECTION_BATCH_SIZE (packages/platform/src/config.ts).
      projectionBatch: num('BENCH_INGEST_PROJECTION_BATCH', 2_000),
    };
    const r = await benchIngest(db.pool, db.url, shape, log);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const t = r.throughput;
    const l = r.lag;
    return [
      '### Ingest: POST /api/v1/ingest end to end, and the head-to-read lag of session-summaries',
      '',
      `Over HTTP on 127.0.0.1 (fetch), the app as apps/api/src/server.ts composes the route, a real \`ingest.write\` key; the worker's projection runner applies session-summaries and llm-ledger meanwhile (${shape.projections === 'process' ? 'in a process of its own, as the worker runs it' : "in the bench's own process"}, batches of ${fmt(shape.projectionBatch)}). A session is 14 facts (start, 4 user messages, 4 LLM calls, 4 replies, end). Lag: from a response to the first applied batch covering the log head read right after it (llm-ledger: the last LLM call at or before it).`,
      '',
      '| phase | clients | items per request | requests | facts/s | request p50 | request p99 | projections caught up after | CPU µs per fact: bench process / projections process / PostgreSQL for the API / for the projections |',
      '|---|---|---|---|---|---|---|---|---|',
      `| as fast as answered | ${t.clients} | ${t.batch} | ${fmt(t.requests)} | ${fmt(t.factsPerSecond)} | ${ms(t.request.p50)} | ${ms(t.request.p99)} | ${t.catchUpSeconds.toFixed(1)} s | ${cpuPerFact(t)} |`,
      '',
      '| steady ingest | seconds | facts/s | batches | projection | lag p50 | lag p99 | lag max | target p99 | CPU µs per fact (as above) | load average at start, end |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      `| ${l.clients} clients x ${l.batch} items every ${l.intervalMs} ms | ${l.seconds.toFixed(0)} | ${fmt(l.factsPerSecond)} | ${fmt(l.lag.runs)} | session-summaries | ${ms(l.lag.p50)} | ${ms(l.lag.p99)} | ${ms(l.lag.max)} | < 250 ms | ${cpuPerFact(l)} | ${l.load.map((n) => n.toFixed(1)).join(', ')} |`,
      `| | | | ${fmt(l.ledgerLag.runs)} | llm-ledger | ${ms(l.ledgerLag.p50)} | ${ms(l.ledgerLag.p99)} | ${ms(l.ledgerLag.max)} | < 250 ms | | |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function chatSection(): Promise<string[]> {
  const db = await openBenchDatabase(16);
  try {
    const shape = {
      seconds: num('BENCH_CHAT_SECONDS', 10),
      clients: num('BENCH_CHAT_CLIENTS', 8),
      latencyTurns: num('BENCH_CHAT_LATENCY_TURNS', 300),
    };
    const r = await benchChat(db.pool, shape, log);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const t = r.throughput;
    const l = r.latency;
    return [
      '### Conversation turns: POST /api/v1/chat/send with the scripted provider',
      '',
      "Over HTTP on 127.0.0.1 (node:http, keep-alive), the app as apps/api/src/server.ts composes the chat routes: a real `chat.write` key, the session limits (in-process), the runtime appending each turn (MessageReceived first, then the turn's trace events, LLM call and reply in one append). Sessions of 5 turns. The tenant request rate is raised out of the way.",
      '',
      '| phase | clients | turns | turns/s | request p50 | request p99 | errors |',
      '|---|---|---|---|---|---|---|',
      `| as fast as answered | ${t.clients} | ${fmt(t.turns)} | ${fmt(t.turnsPerSecond)} | ${ms(t.request.p50)} | ${ms(t.request.p99)} | ${t.errors} |`,
      '',
      "Parley's added latency per turn: one client, turns in a row; the client's round trip minus the provider's own time (its `complete()`), per turn.",
      '',
      '| turns | round trip p50 | round trip p99 | provider p50 | provider p99 | added p50 | added p99 | SQL statements per turn | CPU per turn (API + client) |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${fmt(l.turns)} | ${ms(l.total.p50)} | ${ms(l.total.p99)} | ${ms(l.provider.p50)} | ${ms(l.provider.p99)} | ${ms(l.added.p50)} | ${ms(l.added.p99)} | ${l.statementsPerTurn.toFixed(1)} | ${ms(l.cpuMsPerTurn)} |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function toolTurnSection(): Promise<string[]> {
  const db = await openBenchDatabase(8);
  try {
    const r = await benchToolTurn(db.pool, { turns: num('BENCH_TOOL_TURNS', 200) }, log);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      '### A tool turn: model → http tool → model, through POST /api/v1/chat/send',
      '',
      "The scripted model asks for an http tool, which calls a local service through the SSRF-guarded fetch with a bearer secret decrypted from the agent, then answers from the result: two model calls, one tool call, the turn recorded (trace, two ledger rows, the reply). One client, turns in a row. Parley's added latency: the client's round trip minus the provider's time minus the tool's time (its fetch), per turn; a plain turn's beside it.",
      '',
      '| turns | round trip p50 | round trip p99 | provider p50 | tool p50 | tool p99 | added p50 | added p99 | plain turn added p50 | plain turn added p99 | errors |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      `| ${fmt(r.turns)} | ${ms(r.total.p50)} | ${ms(r.total.p99)} | ${ms(r.provider.p50)} | ${ms(r.tool.p50)} | ${ms(r.tool.p99)} | ${ms(r.added.p50)} | ${ms(r.added.p99)} | ${ms(r.plainAdded.p50)} | ${ms(r.plainAdded.p99)} | ${r.errors} |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function channelsSection(): Promise<string[]> {
  const db = await openBenchDatabase(24);
  try {
    const r = await benchChannels(
      db.pool,
      db.url,
      {
        seconds: num('BENCH_CHANNELS_SECONDS', 10),
        clients: num('BENCH_CHANNELS_CLIENTS', 8),
        rate: num('BENCH_CHANNELS_RATE', 20),
        // The worker's own settings unless told otherwise: pg-boss polling of workChannelQueues, CHANNEL_WORKER_CONCURRENCY.
        pollingIntervalSeconds: num('BENCH_CHANNELS_POLL_SECONDS', 2),
        teamSize: num('BENCH_CHANNELS_TEAM', 4),
      },
      log,
    );
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const a = r.accept;
    const e = r.endToEnd;
    return [
      '### Channels: WhatsApp-shaped webhooks, the worker and a stand-in Graph API',
      '',
      `Over HTTP on 127.0.0.1 (fetch), ${a.clients} clients, ${a.seconds} s per route in alternating 1 s slices (the machine's load falls on both alike). Accepting a webhook = verify X-Hub-Signature-256, resolve the connection (cached 5 s), parse, insert the dedupe row and the pg-boss job in one statement; the workers' NOTIFY follows the commit, coalesced (one statement per 5 ms at most). The bare route reads the same JSON body and INSERTs one row.`,
      '',
      '| route | webhooks/s | request p50 | request p99 | ratio | SQL statements per request | CPU per request (API + client) |',
      '|---|---|---|---|---|---|---|',
      `| bare Fastify + 1 INSERT | ${fmt(a.bareInsertsPerSecond)} | | | 1.00 | ${a.bare.statements.toFixed(1)} | ${ms(a.bare.cpuMs)} |`,
      `| POST /api/v1/channels/whatsapp/webhook | ${fmt(a.webhooksPerSecond)} | ${ms(a.request.p50)} | ${ms(a.request.p99)} | ${a.ratio.toFixed(2)} | ${a.webhook.statements.toFixed(1)} | ${ms(a.webhook.cpuMs)} |`,
      '',
      `The worker (pg-boss polling every ${r.worker.pollingIntervalSeconds} s as a fallback, woken through LISTEN; ${r.worker.teamSize} workers per queue: turn with the scripted provider, then the send job) answered the ${fmt(r.drain.messages)} accepted messages in ${r.drain.seconds.toFixed(1)} s: **${fmt(r.drain.repliesPerSecond)} replies/s**; per reply ${r.drain.perReply.statements.toFixed(1)} SQL statements and ${ms(r.drain.perReply.cpuMs)} of the process's CPU (the worker, the stand-in platform).`,
      '',
      `End to end at ${e.ratePerSecond} messages/s, each from its own user, webhook start to the reply reaching the stand-in:`,
      '',
      '| messages | p50 | p99 | max | not answered within 30 s |',
      '|---|---|---|---|---|',
      `| ${fmt(e.messages)} | ${ms(e.latency.p50)} | ${ms(e.latency.p99)} | ${ms(e.latency.max)} | ${e.lost} |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function httpAsyncSection(): Promise<string[]> {
  const db = await openBenchDatabase(32);
  try {
    const r = await benchHttpAsync(
      db.pool,
      db.url,
      {
        seconds: num('BENCH_HTTP_ASYNC_SECONDS', 10),
        clients: num('BENCH_HTTP_ASYNC_CLIENTS', 8),
        rate: num('BENCH_HTTP_ASYNC_RATE', 20),
        // The worker's own settings unless told otherwise: pg-boss polling, CHANNEL_WORKER_CONCURRENCY.
        pollingIntervalSeconds: num('BENCH_HTTP_ASYNC_POLL_SECONDS', 2),
        teamSize: num('BENCH_HTTP_ASYNC_TEAM', 4),
        downSeconds: num('BENCH_HTTP_ASYNC_DOWN_SECONDS', 60),
        // The production schedule (HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE's default) unless told otherwise.
        schedule:
          process.env.BENCH_HTTP_ASYNC_SCHEDULE === undefined
            ? DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS
            : parseRetrySchedule(process.env.BENCH_HTTP_ASYNC_SCHEDULE),
      },
      log,
    );
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const a = r.accept;
    const e = r.endToEnd;
    const d = r.receiverDown;
    return [
      '### HTTP async: submit, the worker and signed callbacks to an HTTPS receiver',
      '',
      `Over HTTP on 127.0.0.1 (fetch), ${a.clients} clients, ${a.seconds} s per route in alternating 1 s slices (the machine's load falls on both alike), each message a new conversation (its own caller session key). Accepting a message = verify the platform API key (scope channels.http_async, cached 5 s), validate, resolve the subscription (cached), then one statement with the conversation row, the inbound row, the pg-boss turn job and HttpAsyncMessageAccepted; the NOTIFYs (turn workers, log readers) follow the commit, coalesced. The bare route reads the same JSON body and INSERTs one row.`,
      '',
      '| route | submits/s | request p50 | request p99 | ratio | SQL statements per request | CPU per request (API + client) |',
      '|---|---|---|---|---|---|---|',
      `| bare Fastify + 1 INSERT | ${fmt(a.bareInsertsPerSecond)} | ${ms(a.bareRequest.p50)} | ${ms(a.bareRequest.p99)} | 1.00 | ${a.bare.statements.toFixed(1)} | ${ms(a.bare.cpuMs)} |`,
      `| POST /api/v1/channels/http-async/message | ${fmt(a.submitsPerSecond)} | ${ms(a.request.p50)} | ${ms(a.request.p99)} | ${a.ratio.toFixed(2)} | ${a.submit.statements.toFixed(1)} | ${ms(a.submit.cpuMs)} |`,
      '',
      `The worker (pg-boss polling every ${r.worker.pollingIntervalSeconds} s as a fallback, woken through LISTEN; ${r.worker.teamSize} workers per queue: the turn with the scripted provider, then the signed agent.response callback through the guarded fetch to a local HTTPS receiver) answered the ${fmt(r.drain.messages)} accepted messages in ${r.drain.seconds.toFixed(1)} s: **${fmt(r.drain.callbacksPerSecond)} callbacks/s**.`,
      '',
      `End to end at ${e.ratePerSecond} messages/s, submit start to the agent.response reaching the receiver:`,
      '',
      '| messages | p50 | p99 | max | not received within 30 s |',
      '|---|---|---|---|---|',
      `| ${fmt(e.messages)} | ${ms(e.latency.p50)} | ${ms(e.latency.p99)} | ${ms(e.latency.max)} | ${e.lost} |`,
      '',
      `Receiver down (connections refused) for ${d.downSeconds} s while messages arrive at ${d.ratePerSecond}/s, then back; retry schedule ${formatRetrySchedule(r.worker.schedule)} (±20% jitter):`,
      '',
      '| messages | failed attempts (refused connections) | recovery → last callback | lost | duplicates received | processed once (unique message_ids) |',
      '|---|---|---|---|---|---|',
      `| ${fmt(d.messages)} | ${fmt(d.failedAttempts)} | ${d.recoverySeconds.toFixed(1)} s | ${d.lost} | ${d.duplicates} | ${fmt(d.processedOnce)} |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function tracesExportSection(): Promise<string[]> {
  const db = await openBenchDatabase(8);
  try {
    const rows = num('BENCH_TRACES_EXPORT_ROWS', 1_000_000);
    log(`traces-export: loading ${fmt(rows)} trace events…`);
    const r = await benchTracesExport(db.pool, { rows }, log);
    const mb = (n: number) => `${n.toFixed(0)} MiB`;
    return [
      '### Trace CSV export: GET …/sessions/export?format=csv streamed over HTTP',
      '',
      `Rows written straight into the traces read model (${r.loadSeconds.toFixed(0)} s); a keyset walk in ${fmt(EXPORT_BATCH_ROWS)}-row batches, streamed with backpressure; the client (same process) counts records and keeps nothing.`,
      '',
      '| rows | time | rows/s | CSV size | MiB/s | RSS before / peak | heap before / peak | heap limit |',
      '|---|---|---|---|---|---|---|---|',
      `| ${fmt(r.rows)} | ${r.seconds.toFixed(1)} s | ${fmt(r.rowsPerSecond)} | ${mb(r.megabytes)} | ${r.megabytesPerSecond.toFixed(1)} | ${mb(r.rssBeforeMb)} / ${mb(r.rssPeakMb)} | ${mb(r.heapBeforeMb)} / ${mb(r.heapPeakMb)} | ${mb(r.heapLimitMb)} |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function voicePipelineSection(): Promise<string[]> {
  const db = await openBenchDatabase(8);
  try {
    const target = process.env.BENCH_VOICE_LATENCY_TARGET_MS;
    const r = await benchVoicePipeline(
      db.pool,
      {
        utterances: num('BENCH_VOICE_UTTERANCES', 24),
        perCall: num('BENCH_VOICE_PER_CALL', 6),
        ...(target === undefined ? {} : { latencyTargetMs: num('BENCH_VOICE_LATENCY_TARGET_MS', 500) }),
      },
      log,
    );
    const ms = (n: number) => `${n.toFixed(0)} ms`;
    const f = r.firstAudio;
    return [
      '### Voice pipeline: end of speech → first audio back, through the Twilio media stream socket',
      '',
      `A Media Streams client on 127.0.0.1 (connect webhook, then the media WebSocket) speaks the espeak-ng phrases of the recognition test (8 kHz µ-law, one 20 ms frame every 20 ms, silence between), after an untimed warm-up call of 2 utterances, ${r.calls} calls of up to ${fmt(r.utterances / r.calls)} utterances; the reply's mark is echoed at once. From the moment the caller's last voiced frame is sent to the first reply frame received. voice.latencyTargetMs ${r.latencyTargetMs} → end-of-speech wait ${r.endSilenceMs} ms; pocketsphinx streamed per call, the scripted agent, espeak-ng streamed by clause/sentence. Load: \`uptime\` ${loadAverage()}.`,
      '',
      '| utterances | p50 | p99 | max | no reply | WER of what was heard |',
      '|---|---|---|---|---|---|',
      `| ${f.runs} | ${ms(f.p50)} | ${ms(f.p99)} | ${ms(f.max)} | ${r.unanswered} | ${(r.wer * 100).toFixed(1)} % |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');

const probe = await openBenchDatabase(1);
const { rows } = await probe.pool.query<{ server_version: string }>('show server_version');
const header = [
  `Parley benchmarks, ${new Date().toISOString()}`,
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, PostgreSQL ${rows[0]?.server_version} (${probe.source})`,
  '',
];
await probe.close();

async function voiceRealtimeSection(): Promise<string[]> {
  const db = await openBenchDatabase(8);
  try {
    const shape = {
      utterances: num('BENCH_VOICE_REALTIME_UTTERANCES', 25),
      modelDelayMs: num('BENCH_VOICE_REALTIME_MODEL_MS', 200),
    };
    log(`voice-realtime: ${shape.utterances} utterances against the Realtime API stand-in…`);
    const r = await benchVoiceRealtime(db.pool, shape, log);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      '### Voice, realtime mode: end of speech to first audio back, against the Realtime API stand-in',
      '',
      `One Twilio media stream (signed /voice/connect, then the media WebSocket) in \`voice.mode=realtime\`, pcm16 sessions (8 kHz µ-law ↔ 24 kHz PCM16 both ways), utterances of 400 ms of tone paced at 20 ms per frame (after 2 uncounted warm-up utterances); the stand-in's server VAD ends each after 500 ms of silence and answers after ${shape.modelDelayMs} ms with the recorded audio deltas. From the caller's frame that ended the utterance to the first reply frame the caller got; the stand-in's own time (that frame's append received → its first delta sent) subtracted is what Parley adds (both directions through the bridge).`,
      '',
      '| utterances | end of speech → first audio p50 | p99 | stand-in own p50 | p99 | Parley added p50 | added p99 | added max | target added p99 | no reply |',
      '|---|---|---|---|---|---|---|---|---|---|',
      `| ${r.added.runs} | ${ms(r.total.p50)} | ${ms(r.total.p99)} | ${ms(r.model.p50)} | ${ms(r.model.p99)} | ${ms(r.added.p50)} | ${ms(r.added.p99)} | ${ms(r.added.max)} | < 100 ms | ${r.lost} |`,
      '',
      `Of the added time: caller frame → stand-in p50 ${ms(r.inbound.p50)}, p99 ${ms(r.inbound.p99)}; stand-in delta → caller frame p50 ${ms(r.outbound.p50)}, p99 ${ms(r.outbound.p99)}.`,
      '',
    ];
  } finally {
    await db.close();
  }
}

/** BENCH_ONLY names one section or several, comma-separated (e.g. `chat,channels,http-async`). */
const named = (name: string) => only?.split(',').includes(name) === true;
const run = (name: string) => only === undefined || named(name);
const sections = [
  ...(run('append') ? await appendSection() : []),
  ...(run('peer-read') ? await peerReadSection() : []),
  ...(run('rebuild') ? await rebuildSection() : []),
  ...(run('lag') ? await lagSection() : []),
  ...(run('queries') ? await queriesSection() : []),
  ...(run('rebuild-ledger') ? await rebuildLedgerSection() : []),
  ...(run('rebuild-sessions') ? await rebuildSessionsSection() : []),
  ...(named('ledger-stats') ? await ledgerStatsSection() : []),
  ...(run('api') ? await apiSection() : []),
  ...(run('ingest') ? await ingestSection() : []),
  ...(run('chat') ? await chatSection() : []),
  ...(run('tool-turn') ? await toolTurnSection() : []),
  ...(run('traces-export') ? await tracesExportSection() : []),
  ...(run('channels') ? await channelsSection() : []),
  ...(run('http-async') ? await httpAsyncSection() : []),
  ...(run('nats') ? await natsSection() : []),
  // The voice sections: `voice` runs both, `voice-pipeline` / `voice-realtime` one.
  ...(run('voice') || named('voice-pipeline') ? await voicePipelineSection() : []),
  ...(run('voice') || named('voice-realtime') ? await voiceRealtimeSection() : []),
];
process.stdout.write(`${[...header, ...sections].join('\n')}\n`);
