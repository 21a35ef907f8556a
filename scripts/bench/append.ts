import { randomUUID } from 'node:crypto';
import { createPostgresEventStore, type EventToAppend, eventStoreMigrations } from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';

export interface AppendResultRow {
  mode: 'single' | 'batched';
  batchSize: number;
  writers: number;
  appendPerSecond: number;
  rawPerSecond: number;
  ratio: number;
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

export async function benchAppend(
  pool: Pool,
  options: { durationMs: number; batchSize: number; writers: number[] },
  report: (row: AppendResultRow) => void,
): Promise<AppendResultRow[]> {
  await migrate(pool, [eventStoreMigrations]);
  await pool.query(RAW_TABLE);
  const store = createPostgresEventStore({ pool });
  const rows: AppendResultRow[] = [];
  try {
    for (const [mode, batchSize] of [
      ['single', 1],
      ['batched', options.batchSize],
    ] as const) {
      for (const writers of options.writers) {
        const run = randomUUID().slice(0, 8);
        const revisions = new Map<number, bigint>();
        const rawPerSecond = await timed(writers, options.durationMs, batchSize, (w, round, events) =>
          rawInsert(pool, `raw-${run}-${w}`, round * batchSize, events),
        );
        const appendPerSecond = await timed(
          writers,
          options.durationMs,
          batchSize,
          async (w, _round, events) => {
            const expected = revisions.get(w);
            const result = await store.append(`bench-${run}-${w}`, events, {
              expectedRevision: expected === undefined ? 'no_stream' : expected,
            });
            revisions.set(w, result.nextRevision);
          },
        );
        const row = {
          mode,
          batchSize,
          writers,
          appendPerSecond,
          rawPerSecond,
          ratio: appendPerSecond / rawPerSecond,
        };
        rows.push(row);
        report(row);
      }
    }
  } finally {
    await store.close();
  }
  return rows;
}
