import { randomUUID } from 'node:crypto';
import { createPostgresEventStore, type EventToAppend, eventStoreMigrations } from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';
import { openPeer } from './peer.js';

export interface AppendResultRow {
  mode: 'single' | 'batched';
  batchSize: number;
  writers: number;
  appendPerSecond: number;
  rawPerSecond: number;
  ratio: number;
  /** Emmett's PostgreSQL event store, same rows, same writers (scripts/bench/peer.ts). */
  peerPerSecond: number;
  peerRatio: number;
}

/** A realistic event: a user message with metadata, about 400 bytes of JSON. */
function demoEvent(i: number): EventToAppend {
  return {
    eventId: randomUUID(),
    type: 'MessageReceived',
    schemaVersion: 1,
    data: {
      sessionId: `bench-session-${i % 1000}`,
      messageId: randomUUID(),
      text: 'Hello, I would like to change the delivery address of my order, please.',
      channel: 'web_chat',
      receivedAt: new Date().toISOString(),
    },
    metadata: { tenantId: 'bench-tenant', projectId: 'bench-project', correlationId: randomUUID() },
  };
}

const RAW_TABLE = `
  create table if not exists raw_events (
    stream_id text, stream_revision bigint, event_id uuid, type text, schema_version int,
    data jsonb, metadata jsonb, recorded_at timestamptz default now()
  )`;

/** The baseline: the same rows as one multi-row INSERT into a plain table (no keys, no indexes). */
async function rawInsert(pool: Pool, stream: string, from: number, events: EventToAppend[]): Promise<void> {
  const params: unknown[] = [];
  const tuples = events.map((e, i) => {
    params.push(
      stream,
      from + i,
      e.eventId,
      e.type,
      e.schemaVersion ?? 1,
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
    );
    const b = i * 7;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7})`;
  });
  await pool.query(
    `insert into raw_events (stream_id, stream_revision, event_id, type, schema_version, data, metadata) values ${tuples.join(', ')}`,
    params,
  );
}

/** Runs `writers` loops until the deadline; returns events written per second. */
async function timed(
  writers: number,
  durationMs: number,
  batchSize: number,
  write: (writer: number, round: number, events: EventToAppend[]) => Promise<void>,
): Promise<number> {
  const batches = Array.from({ length: 64 }, (_, b) =>
    Array.from({ length: batchSize }, (_, i) => b * batchSize + i),
  );
  let total = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let round = 0; performance.now() < deadline; round++) {
        const events = batches[round % batches.length]!.map(demoEvent);
        await write(writer, round, events);
        total += events.length;
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * `rounds` rounds of every contender one after the other, the order rotating each round (the
 * machine is shared and noisy: each round's ratio compares runs seconds apart).
 */
export async function interleaved<K extends string>(
  contenders: Record<K, () => Promise<number>>,
  rounds: number,
): Promise<Record<K, number[]>> {
  const keys = Object.keys(contenders) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as unknown as Record<K, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(i + round) % keys.length]!;
      out[key].push(await contenders[key]());
    }
  }
  return out;
}

export async function benchAppend(
  pool: Pool,
  url: string,
  options: { durationMs: number; batchSize: number; writers: number[]; rounds: number },
  report: (row: AppendResultRow) => void,
): Promise<AppendResultRow[]> {
  await migrate(pool, [eventStoreMigrations]);
  await pool.query(RAW_TABLE);
  const store = createPostgresEventStore({ pool });
  const peer = await openPeer(url);
  const rows: AppendResultRow[] = [];
  try {
    for (const [mode, batchSize] of [
      ['single', 1],
      ['batched', options.batchSize],
    ] as const) {
      for (const writers of options.writers) {
        const run = randomUUID().slice(0, 8);
        const revisions = new Map<number, bigint>();
        const peerVersions = new Map<number, bigint>();
        let rawRounds = 0;
        const contenders = {
          raw: () =>
            timed(writers, options.durationMs, batchSize, (w, round, events) =>
              rawInsert(pool, `raw-${run}-${rawRounds}-${w}`, round * batchSize, events),
            ).finally(() => rawRounds++),
          append: () =>
            timed(writers, options.durationMs, batchSize, async (w, _round, events) => {
              const expected = revisions.get(w);
              const result = await store.append(`bench-${run}-${w}`, events, {
                expectedRevision: expected === undefined ? 'no_stream' : expected,
              });
              revisions.set(w, result.nextRevision);
            }),
          peer: () =>
            timed(writers, options.durationMs, batchSize, async (w, _round, events) => {
              peerVersions.set(w, await peer.append(`peer-${run}-${w}`, events, peerVersions.get(w) ?? 0n));
            }),
        };
        const r = await interleaved(contenders, options.rounds);
        const row = {
          mode,
          batchSize,
          writers,
          appendPerSecond: median(r.append),
          rawPerSecond: median(r.raw),
          ratio: median(r.append.map((a, i) => a / r.raw[i]!)),
          peerPerSecond: median(r.peer),
          peerRatio: median(r.append.map((a, i) => a / r.peer[i]!)),
        };
        rows.push(row);
        report(row);
      }
    }
  } finally {
    await store.close();
    await peer.close();
  }
  return rows;
}
