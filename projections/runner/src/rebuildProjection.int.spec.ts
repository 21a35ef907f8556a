import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectionRunnerOptions } from './createProjectionRunner.js';
import { defineProjection } from './defineProjection.js';
import { ensureProjection } from './ensureProjection.js';
import { ProjectionBusyError } from './errors.js';
import { projectionStatus } from './projectionStatus.js';
import { type RebuildProgress, rebuildProjection } from './rebuildProjection.js';
import { listGenerations } from './registry.js';
import {
  caughtUp,
  createHarness,
  event,
  eventually,
  expectedRows,
  freshTally,
  type Harness,
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

const runner = (options: Pick<ProjectionRunnerOptions, 'projections'> & Partial<ProjectionRunnerOptions>) =>
  testRunner(h, options);

const fresh = freshTally;

/** `count` appends of 1–3 tally events over `streams` streams. */
async function load(count: number, streams = 40): Promise<void> {
  const names = Array.from({ length: streams }, () => `s-${unique()}`);
  const appends = Array.from({ length: count }, (_, i) => {
    const stream = names[i % streams]!;
    const to = names[(i * 7) % streams]!;
    return h.store.append(stream, [
      event('Added', { amount: i % 13 }),
      ...(i % 3 === 0 ? [event('Moved', { amount: 2, to })] : []),
      ...(i % 5 === 0 ? [event('Noise')] : []),
    ]);
  });
  await Promise.all(appends);
}

/** Reads the view in a loop until stopped; records which known state each read matched. */
function readLoop(table: string, states: Record<string, unknown[]>) {
  const seen: string[] = [];
  const errors: unknown[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      try {
        const rows = await viewRows(h.db.pool, table, 'stream');
        const match = Object.entries(states).find(
          ([, expected]) => JSON.stringify(sorted(expected)) === JSON.stringify(sorted(rows)),
        );
        const name = match?.[0] ?? 'other';
        if (seen.at(-1) !== name) seen.push(name);
      } catch (err) {
        errors.push(err);
      }
    }
  })();
  return {
    seen,
    errors,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

const sorted = (rows: unknown[]) =>
  rows.map((r) =>
    Object.fromEntries(Object.entries(r as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))),
  );

describe('rebuildProjection', () => {
  it('builds a new version beside the old, swaps the view at once, and the new code writes on', async () => {
    const { table, projection } = fresh();
    const v2 = tallyProjection(projection.name, table, 2);
    const oldWorker = runner({ projections: [projection] });
    const newWorker = runner({ projections: [v2] });
    await oldWorker.start();
    await load(600);
    await caughtUp(h, projection);
    await newWorker.start();
    const states = {
      old: await viewRows(h.db.pool, table, 'stream'),
      new: await expectedRows(h.store, v2, table),
    };
    const reader = readLoop(table, states);
    const progress: RebuildProgress[] = [];
    try {
      const result = await rebuildProjection({
        pool: h.db.pool,
        store: h.store,
        projection: v2,
        batchSize: 200,
        progressIntervalMs: 0,
        onProgress: (p) => progress.push(p),
      });
      expect(result).toMatchObject({ generation: 2, previousGeneration: 1, resumed: false });
      await eventually(
        async () => reader.seen.at(-1),
        (s) => s === 'new',
      );
      await reader.stop();
      expect(reader.errors).toEqual([]);
      expect(reader.seen).toEqual(['old', 'new']);
      expect(progress.map((p) => p.phase)).toContain('replaying');
      expect(progress.at(-1)).toMatchObject({ phase: 'done', eventsProcessed: result.eventsProcessed });

      // The new worker took over generation 2; the old one stands by.
      await h.store.append(`s-${unique()}`, [event('Added', { amount: 7 })]);
      await caughtUp(h, v2);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(await expectedRows(h.store, v2, table));
      const [status] = await projectionStatus(h.db.pool, h.store, [v2], { includeRetired: true });
      expect(status).toMatchObject({
        state: 'ok',
        liveGeneration: 2,
        liveVersion: 2,
        versionMismatch: false,
      });
      const { rows } = await h.db.pool.query(`select to_regclass($1) is null as gone`, [`${table}_g1`]);
      expect(rows[0].gone).toBe(true);
    } finally {
      await reader.stop();
      await Promise.all([oldWorker.stop(), newWorker.stop()]);
    }
  });

  it('rebuilds the same version while events keep coming; the running writer switches generations', async () => {
    const { table, projection } = fresh();
    const worker = runner({ projections: [projection] });
    await worker.start();
    try {
      await load(400);
      let appending = true;
      const appender = (async () => {
        while (appending) await load(5, 5);
      })();
      const result = await rebuildProjection({ pool: h.db.pool, store: h.store, projection, batchSize: 150 });
      appending = false;
      await appender;
      expect(result.generation).toBe(2);
      await load(10);
      const live = await caughtUp(h, projection);
      expect(live.generation).toBe(2);
      expect(await viewRows(h.db.pool, table, 'stream')).toEqual(
        await expectedRows(h.store, projection, table),
      );
      const generations = await listGenerations(h.db.pool, projection.name);
      expect(generations.map((g) => [g.generation, g.status, g.tablesDropped])).toEqual([
        [1, 'retired', true],
        [2, 'live', false],
      ]);
    } finally {
      await worker.stop();
    }
  });

  it('runs one rebuild of a projection at a time', async () => {
    const { projection } = fresh();
    await ensureProjection(h.db.pool, projection);
    const holder = await h.db.pool.connect();
    try {
      await holder.query(`select pg_advisory_lock(hashtext($1), 0)`, [
        `parley.projection.rebuild:${projection.name}`,
      ]);
      await expect(rebuildProjection({ pool: h.db.pool, store: h.store, projection })).rejects.toBeInstanceOf(
        ProjectionBusyError,
      );
    } finally {
      holder.release(true);
    }
  });

  it('resumes an interrupted rebuild of the same definition', async () => {
    const { table, projection } = fresh();
    await ensureProjection(h.db.pool, projection);
    await load(100);
    await h.settled();
    const abort = new AbortController();
    await expect(
      rebuildProjection({
        pool: h.db.pool,
        store: h.store,
        projection,
        batchSize: 50,
        progressIntervalMs: 0,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.eventsProcessed > 0) abort.abort();
        },
      }),
    ).rejects.toThrow(/abort/i);
    const [status] = await projectionStatus(h.db.pool, h.store, [projection]);
    expect(status?.state).toBe('building');
    const result = await rebuildProjection({ pool: h.db.pool, store: h.store, projection, batchSize: 50 });
    expect(result).toMatchObject({ generation: 2, resumed: true });
    expect(await viewRows(h.db.pool, table, 'stream')).toEqual(
      await expectedRows(h.store, projection, table),
    );
  });

  it('stops at an event whose keys throw, after applying every batch before it', async () => {
    const { table, projection: tally } = fresh();
    const compiled = tally.compiled[0]!;
    // Keys are taken while the batch before is being written (planned ahead): the failure must
    // still come at its own batch, with the batches before it applied.
    const projection = defineProjection({
      name: tally.name,
      version: 1,
      eventTypes: TALLY_TYPES,
      tables: tally.tables,
      handlers: {
        [table]: {
          keys: (e): { stream: string }[] => {
            if (e.data.poison === tally.name) throw new Error('poisoned keys');
            return compiled.handlers.keys(e) as { stream: string }[];
          },
          evolve: compiled.handlers.evolve as never,
        },
      },
    });
    await ensureProjection(h.db.pool, projection);
    const stream = `s-${unique()}`;
    for (let i = 0; i < 12; i++) await h.store.append(stream, [event('Added', { amount: i })]);
    const poison = event('Added', { amount: 1, poison: tally.name });
    await h.store.append(stream, [poison, event('Added', { amount: 1 })]);
    await h.settled();
    await expect(
      rebuildProjection({ pool: h.db.pool, store: h.store, projection, batchSize: 5 }),
    ).rejects.toThrow(/poisoned keys/);
    const [status] = await projectionStatus(h.db.pool, h.store, [projection]);
    const building = status?.generations.find((g) => g.status === 'building');
    expect(building?.failure).toMatchObject({ eventId: poison.eventId, eventType: 'Added' });
    // Batches of 5 of the log's tally events: all before the poison's batch were applied.
    const tallies = (await wholeLog(h.store)).filter((e) =>
      (TALLY_TYPES as readonly string[]).includes(e.type),
    );
    const at = tallies.findIndex((e) => e.eventId === poison.eventId);
    expect(building?.eventsProcessed).toBe(at - (at % 5));
  });
});
