import { randomUUID } from 'node:crypto';
import { httpAsyncStream, upcast } from '@parley/events';
import { rebuildProjection } from '@parley/projection-runner';
import { createProjectionHarness, type ProjectionHarness } from '@parley/projection-runner/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getDelivery,
  httpAsyncActivityFreshness,
  listDeliveries,
  readDeliveryFromLog,
} from './deliveries.js';
import { httpAsyncActivityProjection } from './httpAsyncActivityProjection.js';
import { attempted, type DeliveryScope, deadLettered, delivered, queued } from './spec/deliveryEvents.js';

// Small batches: rows go through PostgreSQL between the events of one delivery.
let h: ProjectionHarness;
beforeAll(async () => {
  h = await createProjectionHarness({ projection: httpAsyncActivityProjection, upcast, batchSize: 2 });
});
afterAll(() => h.close());

const scopeIn = (
  projectId: string,
  subscriptionId: string,
  n: number,
  eventType?: DeliveryScope['eventType'],
) => ({
  projectId,
  subscriptionId,
  messageId: `ham_${n}`,
  deliveryId: randomUUID(),
  ...(eventType === undefined ? {} : { eventType }),
});

async function tables(projectId: string) {
  const deliveries = await h.db.pool.query(
    'select * from http_async_deliveries where project_id = $1 order by delivery_id',
    [projectId],
  );
  const attempts = await h.db.pool.query(
    `select a.* from http_async_delivery_attempts a join http_async_deliveries d using (delivery_id)
      where d.project_id = $1 order by a.delivery_id, a.attempt`,
    [projectId],
  );
  return { deliveries: deliveries.rows, attempts: attempts.rows };
}

describe('http-async-activity against PostgreSQL', () => {
  it('lists, filters and shows deliveries; rebuild equals incremental; reports freshness', async () => {
    const projectId = `proj_${randomUUID()}`;
    const a = scopeIn(projectId, 'sub_a', 1);
    const b = scopeIn(projectId, 'sub_a', 2, 'agent.status');
    const c = scopeIn(projectId, 'sub_a', 3);
    const other = scopeIn(projectId, 'sub_b', 4);
    await h.append(httpAsyncStream(a.deliveryId), [
      queued(a, { sessionId: 'sess_1', queuedAt: '2025-03-01T10:00:00.000Z' }),
      attempted(a, 1, { nextAttemptAt: '2025-03-01T10:01:10.000Z' }),
    ]);
    await h.append(httpAsyncStream(b.deliveryId), [queued(b, { queuedAt: '2025-03-01T10:05:00.000Z' })]);
    await h.append(httpAsyncStream(a.deliveryId), [
      attempted(a, 2, { result: 'delivered', status: 200, error: undefined }),
      delivered(a, 2, '2025-03-01T10:02:00.000Z'),
    ]);
    await h.append(httpAsyncStream(c.deliveryId), [
      queued(c, { queuedAt: '2025-03-01T10:07:00.000Z', test: true }),
      attempted(c, 1),
      deadLettered(c, { attempts: 1 }),
    ]);
    await h.append(httpAsyncStream(other.deliveryId), [queued(other)]);
    await h.caughtUp();

    const all = await listDeliveries(h.db.pool, { projectId, subscriptionId: 'sub_a', limit: 50, offset: 0 });
    expect(all.total).toBe(3);
    expect(all.deliveries.map((d) => [d.messageId, d.status, d.attempts])).toEqual([
      ['ham_3', 'dead_lettered', 1],
      ['ham_2', 'pending', 0],
      ['ham_1', 'delivered', 2],
    ]);
    expect(all.deliveries[2]).toEqual({
      deliveryId: a.deliveryId,
      projectId,
      subscriptionId: 'sub_a',
      messageId: 'ham_1',
      eventType: 'agent.response',
      sessionId: 'sess_1',
      test: false,
      status: 'delivered',
      attempts: 2,
      firstAttempt: 1,
      reservedAttempt: 2,
      maxAttempts: 3,
      lastStatus: 200,
      lastLatencyMs: 42,
      lastError: null,
      lastAttemptAt: new Date('2025-03-01T10:02:00.000Z'),
      nextAttemptAt: null,
      deadLetterReason: null,
      queuedAt: new Date('2025-03-01T10:00:00.000Z'),
      requeuedAt: null,
      deliveredAt: new Date('2025-03-01T10:02:00.000Z'),
      deadLetteredAt: null,
      updatedAt: new Date('2025-03-01T10:02:00.000Z'),
      payload: { message_id: 'ham_1', response: 'hello' },
    });
    const page = await listDeliveries(h.db.pool, { projectId, subscriptionId: 'sub_a', limit: 1, offset: 1 });
    expect(page.total).toBe(3);
    expect(page.deliveries.map((d) => d.messageId)).toEqual(['ham_2']);
    const filtered = async (f: object) =>
      (
        await listDeliveries(h.db.pool, { projectId, subscriptionId: 'sub_a', limit: 50, offset: 0, ...f })
      ).deliveries.map((d) => d.messageId);
    expect(await filtered({ eventType: 'agent.status' })).toEqual(['ham_2']);
    expect(await filtered({ status: 'dead_lettered' })).toEqual(['ham_3']);
    expect(await filtered({ messageId: 'ham_1' })).toEqual(['ham_1']);
    expect(await filtered({ messageId: 'ham_1', status: 'failed' })).toEqual([]);
    // Another project sees nothing of these.
    expect(
      (await listDeliveries(h.db.pool, { projectId: 'p-x', subscriptionId: 'sub_a', limit: 5, offset: 0 }))
        .total,
    ).toBe(0);

    const shown = await getDelivery(h.db.pool, projectId, 'sub_a', a.deliveryId);
    expect(shown?.attemptLog).toEqual([
      {
        attempt: 1,
        result: 'failed',
        status: 503,
        latencyMs: 41,
        error: 'HTTP 503',
        attemptedAt: new Date('2025-03-01T10:01:00.000Z'),
        nextAttemptAt: new Date('2025-03-01T10:01:10.000Z'),
      },
      {
        attempt: 2,
        result: 'delivered',
        status: 200,
        latencyMs: 42,
        error: null,
        attemptedAt: new Date('2025-03-01T10:02:00.000Z'),
        nextAttemptAt: null,
      },
    ]);
    expect(await getDelivery(h.db.pool, projectId, 'sub_b', a.deliveryId)).toBeNull();
    expect(await getDelivery(h.db.pool, 'p-x', 'sub_a', a.deliveryId)).toBeNull();

    // The log's fold agrees with the read model, delivery by delivery.
    for (const d of all.deliveries) expect(await readDeliveryFromLog(h.store, d.deliveryId)).toEqual(d);
    expect(await readDeliveryFromLog(h.store, randomUUID())).toBeNull();

    const freshness = await httpAsyncActivityFreshness(h.db.pool);
    expect(freshness.position).toMatch(/^\d+\/\d+$/);
    expect(freshness.generation).toBe(1);
    expect(freshness.recordedAt).toBeInstanceOf(Date);

    const incremental = await tables(projectId);
    expect(incremental.deliveries).toHaveLength(4);
    expect(incremental.attempts).toHaveLength(3);
    const result = await rebuildProjection({
      pool: h.db.pool,
      store: h.store,
      projection: httpAsyncActivityProjection,
      batchSize: 3,
    });
    expect(result.generation).toBe(2);
    expect(await tables(projectId)).toEqual(incremental);
    expect((await httpAsyncActivityFreshness(h.db.pool)).generation).toBe(2);

    // A repeated append (same event ids) changes nothing; a redelivery continues the attempts.
    const read = [];
    for await (const e of h.store.readStream(httpAsyncStream(c.deliveryId), { maxCount: 1 })) read.push(e);
    const [first] = read;
    if (first === undefined) throw new Error('no Queued event');
    // The same event again (the log ignores it), then the same queueing under another event id.
    await h.append(httpAsyncStream(c.deliveryId), [
      { eventId: first.eventId, type: first.type, data: first.data, metadata: first.metadata },
    ]);
    await h.append(httpAsyncStream(c.deliveryId), [
      queued(c, { queuedAt: '2025-03-01T10:08:00.000Z', test: true }),
    ]);
    await h.caughtUp();
    expect(await getDelivery(h.db.pool, projectId, 'sub_a', c.deliveryId)).toMatchObject({
      status: 'dead_lettered',
      firstAttempt: 1,
      queuedAt: new Date('2025-03-01T10:07:00.000Z'),
    });
    await h.append(httpAsyncStream(c.deliveryId), [
      queued(c, { firstAttempt: 2, test: true, queuedAt: '2025-03-01T12:00:00.000Z' }),
    ]);
    await h.caughtUp();
    expect(await getDelivery(h.db.pool, projectId, 'sub_a', c.deliveryId)).toMatchObject({
      status: 'pending',
      attempts: 1,
      firstAttempt: 2,
      test: true,
      requeuedAt: new Date('2025-03-01T12:00:00.000Z'),
      queuedAt: new Date('2025-03-01T10:07:00.000Z'),
    });
  });
});
