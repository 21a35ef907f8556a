import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { toAppend, upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  START,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { createTraceReads, TRACE_CSV_COLUMNS, tracesProjection } from '@parley/projection-traces';
import { parseCsv } from '@parley/projection-traces/testing';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildApp } from '../app.js';

// A streamed export of many rows over real HTTP: every row back exactly, in order, with RFC 4180
// quoting of names and attributes full of commas, quotes, CR and LF; and a client that stops
// reading stops the export's queries.
const ROWS = 20_000;
const BATCH = 1_000;

let db: TestDatabase;
let store: PostgresEventStore;
let runner: ProjectionRunner;
let auth: AuthStore;
let app: FastifyInstance;
let baseUrl: string;
let projectId: string;
let key: string;
let batchesRead = 0;
/** Set when the export's generator ends or is closed (return() by the stream's destroy). */
let exportClosed = false;
const expected = new Map<string, { name: string; attributes: Record<string, string> }>();

const tricky = fc.string({
  unit: fc.constantFrom(',', '"', '\r', '\n', ' ', 'x', 'é', '😀', "'", '\t'),
  minLength: 1,
  maxLength: 12,
});

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations, authMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [tracesProjection],
    batchSize: 5_000,
  });
  await runner.start();
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'support', name: 'Support' })).id;
  key = (await auth.createApiKey({ projectId, name: 'traces', scopes: ['traces.read'] })).key;

  const names = fc.sample(tricky, { numRuns: ROWS, seed: 42 });
  const values = fc.sample(tricky, { numRuns: ROWS, seed: 7 });
  let last: Position = START;
  for (let s = 0; s < ROWS / 500; s++) {
    const sessionId = `sess_${s}_${randomUUID()}`;
    const events = Array.from({ length: 500 }, (_, i) => {
      const n = s * 500 + i;
      const name = names[n]!;
      const attributes = { note: values[n]!, 'k,"\n': 'v' };
      const event = toAppend('TraceEventRecorded', {
        projectId,
        sessionId,
        traceId: `t${s}`,
        spanId: `span-${n}`,
        eventType: 'tool_call',
        name,
        startedAt: new Date(Date.UTC(2026, 10, 1) + n).toISOString(),
        durationMs: n % 100,
        attributes,
      });
      expected.set(event.eventId, { name, attributes });
      return event;
    });
    const { position } = await store.append(`session-${sessionId}`, events);
    if (comparePositions(position, last) > 0) last = position;
  }
  const deadline = Date.now() + 100_000;
  for (;;) {
    const [status] = await projectionStatus(db.pool, store, [tracesProjection]);
    const live = status?.generations.find((g) => g.generation === status.liveGeneration);
    if (live && comparePositions(live.checkpoint, last) >= 0) break;
    if (Date.now() > deadline) throw new Error('traces did not catch up');
    await new Promise((r) => setTimeout(r, 50));
  }

  const reads = createTraceReads(db.pool, { exportBatchRows: BATCH });
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    traces: {
      verifyApiKey: (raw) => auth.verifyApiKey(raw),
      reads: {
        ...reads,
        // Counts the batches the export produced (the header chunk included), to see it stop.
        exportCsv: async function* (filter) {
          exportClosed = false;
          try {
            for await (const chunk of reads.exportCsv(filter)) {
              batchesRead += 1;
              yield chunk;
            }
          } finally {
            exportClosed = true;
          }
        },
      },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
  await app?.close();
  await runner?.stop();
  await store?.close();
  await db?.close();
});

it(`streams ${ROWS} rows in batches, every field quoted per RFC 4180, in (startedAt, eventId) order`, async () => {
  batchesRead = 0;
  const res = await fetch(`${baseUrl}/api/projects/${projectId}/sessions/export?format=csv`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('transfer-encoding')).toBe('chunked');
  expect(res.headers.get('content-length')).toBeNull();
  const text = await res.text();
  const [header, ...records] = parseCsv(text);
  expect(header).toEqual([...TRACE_CSV_COLUMNS]);
  expect(records).toHaveLength(ROWS);
  const column = (name: (typeof TRACE_CSV_COLUMNS)[number]) => TRACE_CSV_COLUMNS.indexOf(name);
  records.forEach((record, n) => {
    const want = expected.get(record[column('eventId')]!);
    expect(want).toBeDefined();
    expect(record[column('spanId')]).toBe(`span-${n}`);
    expect(record[column('name')]).toBe(want!.name);
    expect(JSON.parse(record[column('attributes')]!)).toEqual(want!.attributes);
    expect(record[column('durationMs')]).toBe(String(n % 100));
  });
  // The header, then one chunk per batch of the keyset walk.
  expect(batchesRead).toBe(1 + ROWS / BATCH);
}, 60_000);

it('stops querying when the client goes away', async () => {
  batchesRead = 0;
  const { port } = app.server.address() as AddressInfo;
  // node:http, so that destroying the request closes its socket at once.
  await new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/projects/${projectId}/sessions/export`,
        headers: { 'x-api-key': key },
      },
      (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
  // Once the server has noticed (the export closed), the walk has stopped: no batch after that.
  await vi.waitFor(() => expect(exportClosed).toBe(true), { timeout: 10_000, interval: 10 });
  const after = batchesRead;
  // A quiet period (nothing to wait for: proving that nothing more happens).
  await new Promise((r) => setTimeout(r, 300));
  expect(batchesRead).toBe(after);
  expect(batchesRead).toBeLessThan(1 + ROWS / BATCH);
  // Closed, not merely paused by backpressure: its pending query is not kept around either.
  expect(exportClosed).toBe(true);
  const open = await new Promise<number>((resolve, reject) =>
    app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );
  // Only the first test's idle keep-alive connection remains.
  expect(open).toBeLessThanOrEqual(1);
}, 60_000);
