import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { storedCallerNumberKey } from '@parley/analytics';
import { buildApp } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { upcast } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type Position,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { ingest } from '@parley/ingest';
import { migrate, type Pool, silentLogger } from '@parley/platform';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { sessionSummariesProjection } from '@parley/projection-session-summaries';
import { type CpuUse, startCpuMeter } from './ingestCpu.js';
import { type ProjectionsMode, startIngestProjections } from './ingestRunner.js';
import { type Latency, latencyOf } from './stats.js';

export interface IngestBenchResult {
  throughput: {
    clients: number;
    batch: number;
    seconds: number;
    requests: number;
    factsPerSecond: number;
    request: Latency;
    /** CPU time of the phase and the projections' catch-up after it, per component (see ./ingestCpu.ts). */
    cpu: CpuUse;
    /** Seconds after the phase until both projections had applied everything. */
    catchUpSeconds: number;
  };
  lag: {
    clients: number;
    batch: number;
    intervalMs: number;
    seconds: number;
    factsPerSecond: number;
    /** session-summaries (every ingested type). */
    lag: Latency;
    /** llm-ledger (LlmCallRecorded only): to the last LLM call at or before the head. */
    ledgerLag: Latency;
    /** CPU time of the phase and its drain, per component (as the throughput phase's). */
    cpu: CpuUse;
    /** Load average (1 min) at the phase's start and end: other processes share the cores. */
    load: [number, number];
  };
}

const { projectId: _p, tenantId: _t, ...llmCall } = eventExamples.LlmCallRecorded;
const CHANNELS = ['web_chat', 'voice_pipeline', 'sdk_web', 'twilio_sms'] as const;

/** One session's facts as ingest items: start, four turns (message, LLM call, reply), end: 14 items. */
export function sessionItems(n: number): object[] {
  const sessionId = `sess-${randomUUID()}`;
  const t0 = Date.now() - 600_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  const items: object[] = [
    {
      id: `${sessionId}:start`,
      type: 'session.started',
      data: {
        sessionId,
        agentName: 'billing-assistant',
        channel: CHANNELS[n % CHANNELS.length],
        environment: n % 3 === 0 ? 'staging' : 'production',
        callerNumber: `+44 20 7183 ${String(n % 10_000).padStart(4, '0')}`,
        traceDimensions: { region: n % 2 === 0 ? 'eu' : 'us' },
        startedAt: at(0),
      },
    },
  ];
  for (let turn = 0; turn < 4; turn++) {
    items.push(
      {
        id: `${sessionId}:u${turn}`,
        type: 'message.user',
        data: {
          sessionId,
          messageId: `${sessionId}-u${turn}`,
          text: 'Where is my order? It was due on Tuesday.',
          receivedAt: at(10 * turn + 1),
        },
      },
      {
        id: `${sessionId}:l${turn}`,
        type: 'llm.call',
        data: { ...llmCall, sessionId, callId: `${sessionId}-l${turn}`, startedAt: at(10 * turn + 2) },
      },
      {
        id: `${sessionId}:a${turn}`,
        type: 'message.agent',
        data: {
          sessionId,
          messageId: `${sessionId}-a${turn}`,
          agentName: 'billing-assistant',
          text: 'Let me check the delivery status of your order for you.',
          repliedAt: at(10 * turn + 4),
        },
      },
    );
  }
  items.push({
    id: `${sessionId}:end`,
    type: 'session.ended',
    data: { sessionId, status: 'completed', containmentType: 'contained_resolved', endedAt: at(60) },
  });
  return items;
}

export function itemSource() {
  let pending: object[] = [];
  let n = 0;
  return (count: number): object[] => {
    while (pending.length < count) pending = pending.concat(sessionItems(n++));
    const batch = pending.slice(0, count);
    pending = pending.slice(count);
    return batch;
  };
}

/**
 * POST /api/v1/ingest end to end over HTTP (buildApp with the ingest option as apps/api/src/server.ts
 * composes it: the real key check, rate limit, zod validation, one transaction per batch), with the
 * worker's projection runner applying session-summaries meanwhile. Phase 1: `clients` loops post
 * `batch` items as fast as they are answered. Phase 2 (steady ingest): each client posts a smaller
 * batch every `intervalMs`; a batch's lag runs from its response (committed) to the first applied
 * projection batch whose checkpoint covers the log head read right after that response.
 */
export async function benchIngest(
  pool: Pool,
  connectionString: string,
  options: {
    seconds: number;
    clients: number;
    batch: number;
    lagSeconds: number;
    lagBatch: number;
    lagIntervalMs: number;
    projections: ProjectionsMode;
    projectionBatch: number;
  },
  progress: (line: string) => void,
): Promise<IngestBenchResult> {
  await migrate(pool, [eventStoreMigrations, authMigrations, projectionRunnerMigrations]);
  const store = createPostgresEventStore({ pool, connectionString, upcast });
  const auth = createAuthStore(pool, { verifyCacheTtlMs: 5_000 });
  const tenant = await auth.createTenant({ name: 'Bench' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench' });
  const { key } = await auth.createApiKey({ projectId: project.id, scopes: ['ingest.write'] });
  // Per projection: positions a request's response must see applied, and the lags measured.
  const pending = new Map<string, Array<{ position: Position; at: number }>>([
    [sessionSummariesProjection.name, []],
    [llmLedgerProjection.name, []],
  ]);
  const lags = new Map<string, number[]>([...pending.keys()].map((k) => [k, []]));
  const waiting = () => [...pending.values()].reduce((n, list) => n + list.length, 0);
  let measuring = false;
  const onApplied = (projection: string, checkpoint: Position) => {
    const now = performance.now();
    const list = pending.get(projection) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const p = list[i] as { position: Position; at: number };
      if (comparePositions(p.position, checkpoint) <= 0) {
        if (measuring) lags.get(projection)?.push(now - p.at);
        list.splice(i, 1);
      }
    }
  };
  // The last LLM call a reader can read now: llm-ledger's checkpoint never passes other types.
  const lastLlmCall = async (): Promise<Position | null> => {
    const { rows } = await pool.query<{ t: string; p: string }>(
      `select transaction_id::text as t, position::text as p from events
       where type = 'LlmCallRecorded' and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       order by transaction_id desc, position desc limit 1`,
    );
    return rows[0] ? { commit: BigInt(rows[0].t), prepare: BigInt(rows[0].p) } : null;
  };
  const expect = async (at: number) => {
    const [head, llm] = await Promise.all([store.head(), lastLlmCall()]);
    if (head) pending.get(sessionSummariesProjection.name)?.push({ position: head.position, at });
    if (llm) pending.get(llmLedgerProjection.name)?.push({ position: llm, at });
  };
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000_000 },
    ingest: {
      verify: (apiKey) => auth.verifyApiKey(apiKey),
      ingest: (scope, items) =>
        ingest({ store, pool, normaliseCallerNumber: storedCallerNumberKey }, scope, items),
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/ingest`;
  // Each client sends its own sessions' facts in order, as a component does; a session split
  // between two clients' concurrent requests would race to create its stream.
  const sources = Array.from({ length: options.clients }, () => itemSource());
  const post = async (items: object[]): Promise<void> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ items }),
    });
    const body = (await res.json()) as { data?: { accepted: number } };
    if (res.status !== 200 || body.data?.accepted !== items.length)
      throw new Error(`ingest answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  };
  const runner = await startIngestProjections(
    options.projections,
    { pool, store, connectionString, batchSize: options.projectionBatch },
    onApplied,
  );
  try {
    progress(`  ingest: ${options.clients} clients x ${options.batch} items, ${options.seconds} s…`);
    const requestTimes: number[] = [];
    let facts = 0;
    const meter = await startCpuMeter(pool, runner.cpuMs);
    let started = performance.now();
    let deadline = started + options.seconds * 1000;
    await Promise.all(
      sources.map(async (next) => {
        while (performance.now() < deadline) {
          const items = next(options.batch);
          const t = performance.now();
          await post(items);
          requestTimes.push(performance.now() - t);
          facts += items.length;
        }
      }),
    );
    const throughputSeconds = (performance.now() - started) / 1000;
    await meter.phaseEnded();
    progress(`  ingest: ${Math.round(facts / throughputSeconds)} facts/s; letting the projections catch up…`);
    const caughtUp = performance.now();
    const settle = caughtUp + 120_000;
    await expect(caughtUp);
    while (waiting() > 0 && performance.now() < settle) await new Promise((r) => setTimeout(r, 50));
    for (const list of pending.values()) list.length = 0;
    // To the projections' catch-up: what the phase's facts cost the projections and PostgreSQL.
    const cpu = await meter.finish();
    const throughput = {
      clients: options.clients,
      batch: options.batch,
      seconds: throughputSeconds,
      requests: requestTimes.length,
      factsPerSecond: facts / throughputSeconds,
      request: latencyOf(requestTimes),
      cpu,
      catchUpSeconds: (performance.now() - caughtUp) / 1000,
    };

    progress(
      `  ingest lag: ${options.clients} clients x ${options.lagBatch} items every ${options.lagIntervalMs} ms, ${options.lagSeconds} s…`,
    );
    measuring = true;
    facts = 0;
    const loadAtStart = loadavg()[0] ?? 0;
    const lagMeter = await startCpuMeter(pool, runner.cpuMs);
    started = performance.now();
    deadline = started + options.lagSeconds * 1000;
    await Promise.all(
      sources.map(async (next) => {
        for (let at = performance.now(); at < deadline; at += options.lagIntervalMs) {
          const wait = at - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const items = next(options.lagBatch);
          await post(items);
          await expect(performance.now());
          facts += items.length;
        }
      }),
    );
    const lagSeconds = (performance.now() - started) / 1000;
    await lagMeter.phaseEnded();
    const drain = performance.now() + 60_000;
    while (waiting() > 0 && performance.now() < drain) await new Promise((r) => setTimeout(r, 20));
    if (waiting() > 0) progress(`  ingest lag: ${waiting()} responses not projected within 60 s of the end`);
    const lagCpu = await lagMeter.finish();
    return {
      throughput,
      lag: {
        clients: options.clients,
        batch: options.lagBatch,
        intervalMs: options.lagIntervalMs,
        seconds: lagSeconds,
        factsPerSecond: facts / lagSeconds,
        lag: latencyOf(lags.get(sessionSummariesProjection.name) ?? []),
        ledgerLag: latencyOf(lags.get(llmLedgerProjection.name) ?? []),
        cpu: lagCpu,
        load: [loadAtStart, loadavg()[0] ?? 0],
      },
    };
  } finally {
    await runner.stop();
    await app.close();
    await store.close();
  }
}
