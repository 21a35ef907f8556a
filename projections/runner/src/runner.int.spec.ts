import type { Position } from '@parley/eventstore';
import { createPostgresEventStore } from '@parley/eventstore';
import { createPool, withTransaction } from '@parley/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBatch } from './applyBatch.js';
import { createProjectionRunner, type ProjectionRunnerOptions } from './createProjectionRunner.js';
import { ensureProjection } from './ensureProjection.js';
import { CheckpointConflictError } from './errors.js';
import { projectionStatus } from './projectionStatus.js';
import {
  caughtUp,
  createHarness,
  event,
  eventually,
  expectedRows,
  fastTimings,
  freshTally,
  type Harness,
  sleep,
  testRunner,
  unique,
  viewRows,
  wholeLog,
} from './spec/harness.js';
import { TALLY_TYPES, tallyProjection } from './spec/tallyProjection.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const fresh = freshTally;

const runner = (options: Pick<ProjectionRunnerOptions, 'projections'> & Partial<ProjectionRunnerOptions>) =>
  testRunner(h, options);

const lastTallyPosition = async (): Promise<Position | undefined> =>
  (await wholeLog(h.store)).filter((e) => (TALLY_TYPES as readonly string[]).includes(e.type)).at(-1)
    ?.position;

describe('projection runner', () => {
  it('projects appended events into the view, moves the checkpoint and reports lag', async () => {
    const { table, projection } = fresh();
    const first = runner({ projections: [projection] });
    await first.start();
    try {
      await h.store.append(`s-${unique()}`, [
        event('Added', { amount: 5 }),
        event('Noise'),
        event('Added', { amount: 2 }),
      ]);
      const moved = `s-${unique()}`;
      await h.store.append(`s-${unique()}`, [
        event('Added', { amount: 9 }),
        event('Moved', { amount: 4, to: moved }),
      ]);
      await h.store.append(`s-${unique()}`, [event('Added', { amount: 1 }), event('Reset')]);
      const live = await caughtUp(h, projection);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(
        await expectedRows(h.store, projection, table),
      );
      expect(live.checkpoint).toEqual(await lastTallyPosition());
      expect(live.secondsBehind).toBe(0);
    } finally {
      await first.stop();
    }

    await sleep(20);
    await h.store.append(`s-${unique()}`, [event('Added', { amount: 1 }), event('Removed', { amount: 1 })]);
    await h.settled();
    const [behind] = await projectionStatus(h.db.pool, h.store, [projection]);
    expect(behind?.state).toBe('ok');
    expect(behind?.generations[0]).toMatchObject({
      status: 'live',
      eventsBehind: 2,
      eventsBehindCapped: false,
    });
    expect(behind?.generations[0]?.secondsBehind).toBeGreaterThan(0);
    const [capped] = await projectionStatus(h.db.pool, h.store, [projection], { cap: 1 });
    expect(capped?.generations[0]).toMatchObject({ eventsBehind: 1, eventsBehindCapped: true });

    const second = runner({ projections: [projection] });
    await second.start();
    try {
      await caughtUp(h, projection);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(
        await expectedRows(h.store, projection, table),
      );
    } finally {
      await second.stop();
    }
  });

  it('has one writer per projection among several runners, and fails over', async () => {
    const { table, projection } = fresh();
    const otherPool = createPool({ connectionString: h.db.url, max: 5 });
    const otherStore = createPostgresEventStore({ pool: otherPool, connectionString: h.db.url });
    const applied = { a: 0, b: 0 };
    const a = runner({ projections: [projection], batchSize: 7, onBatchApplied: () => applied.a++ });
    const b = createProjectionRunner({
      ...fastTimings,
      pool: otherPool,
      store: otherStore,
      projections: [projection],
      batchSize: 7,
      onBatchApplied: () => applied.b++,
    });
    await Promise.all([a.start(), b.start()]);
    try {
      const streams = Array.from({ length: 6 }, () => `s-${unique()}`);
      await Promise.all(
        streams.map(async (stream, i) => {
          for (let n = 0; n < 15; n++) {
            await h.store.append(stream, [
              event('Added', { amount: n }),
              event('Moved', { amount: 1, to: streams[(i + 1) % 6] }),
            ]);
          }
        }),
      );
      await caughtUp(h, projection);
      expect(applied.a > 0 !== applied.b > 0).toBe(true);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(
        await expectedRows(h.store, projection, table),
      );

      // The writer stops; the other takes its lock and goes on.
      const [writer, standby] = applied.a > 0 ? [a, 'b' as const] : [b, 'a' as const];
      await writer.stop();
      await h.store.append(streams[0]!, [event('Added', { amount: 100 })]);
      await caughtUp(h, projection);
      expect(applied[standby]).toBeGreaterThan(0);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(
        await expectedRows(h.store, projection, table),
      );
      const [status] = await projectionStatus(h.db.pool, h.store, [projection]);
      const tallyEvents = (await wholeLog(h.store)).filter((e) =>
        (TALLY_TYPES as readonly string[]).includes(e.type),
      );
      expect(status?.generations[0]?.eventsProcessed).toBe(tallyEvents.length);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await otherStore.close();
      await otherPool.end();
    }
  });

  it('applies a batch once: the stale second apply is refused, a replay changes nothing', async () => {
    const { table, projection } = fresh();
    await ensureProjection(h.db.pool, projection);
    await h.store.append(`s-${unique()}`, [event('Added', { amount: 3 }), event('Added', { amount: 4 })]);
    await h.settled();
    const events = await wholeLog(h.store);
    const start = { generation: 1, status: 'live' as const, checkpoint: { commit: 0n, prepare: 0n } };
    const once = await withTransaction(h.db.pool, (c) => applyBatch(c, projection, start, events));
    const rows = await viewRows(h.db.pool, table, 'stream');
    expect(rows).toEqual(await expectedRows(h.store, projection, table));

    await expect(
      withTransaction(h.db.pool, (c) => applyBatch(c, projection, start, events)),
    ).rejects.toBeInstanceOf(CheckpointConflictError);
    const replay = { ...start, checkpoint: once.checkpoint };
    const again = await withTransaction(h.db.pool, (c) => applyBatch(c, projection, replay, events));
    expect(again).toMatchObject({ applied: 0, checkpoint: once.checkpoint });
    expect(await viewRows(h.db.pool, table, 'stream')).toEqual(rows);
  });

  it('stops a projection at a poison event and shows it failed; other projections go on', async () => {
    const { table, projection } = fresh();
    const other = fresh();
    const r = runner({ projections: [projection, other.projection] });
    await r.start();
    try {
      const stream = `s-${unique()}`;
      await h.store.append(stream, [event('Added', { amount: 1 })]);
      await caughtUp(h, projection);
      const before = await viewRows(h.db.pool, table, 'stream');
      const checkpoint = await lastTallyPosition();
      const poison = event('Added', { amount: 1, poison: projection.name });
      await h.store.append(stream, [event('Noise'), poison, event('Added', { amount: 1 })]);
      await h.settled();
      const [status] = await eventually(
        () => projectionStatus(h.db.pool, h.store, [projection]),
        ([s]) => s?.state === 'failed',
      );
      expect(status?.state).toBe('failed');
      expect(status?.generations[0]?.failure).toMatchObject({ eventId: poison.eventId, eventType: 'Added' });
      expect(status?.generations[0]?.failure?.error).toMatch(/poisoned event/);
      expect(status?.generations[0]?.checkpoint).toEqual(checkpoint);
      expect(status?.generations[0]?.eventsBehind).toBe(2);
      await caughtUp(h, other.projection);
      await sleep(300);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(before);
    } finally {
      await r.stop();
    }
  });

  it('reports a changed definition as needing a rebuild and keeps serving the old generation', async () => {
    const { table, projection } = fresh();
    await ensureProjection(h.db.pool, projection);
    const v2 = tallyProjection(projection.name, table, 2);
    expect(await ensureProjection(h.db.pool, v2)).toMatchObject({
      status: 'rebuild_required',
      registeredVersion: 1,
    });

    const r = runner({ projections: [v2] });
    await r.start();
    try {
      await h.store.append(`s-${unique()}`, [event('Added', { amount: 1 })]);
      await sleep(300);
      const [status] = await projectionStatus(h.db.pool, h.store, [v2]);
      expect(status).toMatchObject({
        state: 'rebuild_required',
        versionMismatch: true,
        liveVersion: 1,
        codeVersion: 2,
      });
      expect(status?.generations[0]?.eventsProcessed).toBe(0);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual([]);
    } finally {
      await r.stop();
    }
  });
});
