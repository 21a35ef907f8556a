import { START } from '@parley/eventstore';
import { withTransaction } from '@parley/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBatch } from './applyBatch.js';
import { applyLiveBatch } from './applyLiveBatch.js';
import { COPY_MIN_ROWS } from './copyRows.js';
import { ensureProjection } from './ensureProjection.js';
import { CheckpointConflictError, ProjectionHandlerError } from './errors.js';
import { readGeneration } from './registry.js';
import {
  createHarness,
  event,
  expectedRows,
  freshTally,
  type Harness,
  unique,
  viewRows,
  wholeLog,
} from './spec/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const freshRollupTally = () => freshTally({ rollup: true });
const live = { generation: 1, status: 'live' as const, checkpoint: START };

describe('applyLiveBatch (a live batch in two round trips)', () => {
  it('writes what applyBatch writes: rows, deletes, moves, rollups, COPY-sized inserts', async () => {
    const a = freshRollupTally();
    const b = freshRollupTally();
    await ensureProjection(h.db.pool, a.projection);
    await ensureProjection(h.db.pool, b.projection);
    const streams = Array.from({ length: COPY_MIN_ROWS + 8 }, () => `s-${unique()}`);
    for (const s of streams) await h.store.append(s, [event('Added', { amount: 3 })]);
    await h.store.append(streams[0] as string, [event('Removed', { amount: 5 }), event('Reset')]);
    await h.store.append(streams[1] as string, [event('Moved', { amount: 2, to: streams[2] })]);
    await h.settled();
    const events = await wholeLog(h.store);
    // Two batches each: the first inserts enough new rows for COPY, the second (the last three
    // events) loads rows the first wrote (upserts, a delete, a move, lowered rollup counts).
    let ca = live;
    let cb = live;
    for (const part of [events.slice(0, -3), events.slice(-3)]) {
      ca = { ...ca, checkpoint: (await applyLiveBatch(h.db.pool, a.projection, ca, part)).checkpoint };
      const r = await withTransaction(h.db.pool, (c) => applyBatch(c, b.projection, cb, part));
      cb = { ...cb, checkpoint: r.checkpoint };
    }
    expect(ca.checkpoint).toEqual(cb.checkpoint);
    const rowsA = await viewRows(h.db.pool, a.table, 'stream');
    expect(rowsA).toEqual(await viewRows(h.db.pool, b.table, 'stream'));
    expect(rowsA).toEqual(await expectedRows(h.store, a.projection, a.table));
    const rollup = async (t: string) =>
      (await h.db.pool.query(`select * from "${t}_r" order by last_type, sign`)).rows;
    expect(await rollup(a.table)).toEqual(await rollup(b.table));
  });

  it('refuses a stale batch (the checkpoint moved) and writes nothing', async () => {
    const { table, projection } = freshRollupTally();
    await ensureProjection(h.db.pool, projection);
    await h.store.append(`s-${unique()}`, [event('Added', { amount: 3 }), event('Added', { amount: 4 })]);
    await h.settled();
    const events = await wholeLog(h.store);
    const once = await applyLiveBatch(h.db.pool, projection, live, events);
    const rows = await viewRows(h.db.pool, table, 'stream');
    await expect(applyLiveBatch(h.db.pool, projection, live, events)).rejects.toBeInstanceOf(
      CheckpointConflictError,
    );
    const again = await applyLiveBatch(
      h.db.pool,
      projection,
      { ...live, checkpoint: once.checkpoint },
      events,
    );
    expect(again).toMatchObject({ applied: 0, checkpoint: once.checkpoint });
    expect(await viewRows(h.db.pool, table, 'stream')).toEqual(rows);
  });

  it('names the table of a value PostgreSQL refuses, as applyBatch does, and writes nothing', async () => {
    const { table, projection } = freshRollupTally();
    await ensureProjection(h.db.pool, projection);
    await h.store.append(`s-${unique()}`, [event('Added', { amount: 2 })]);
    // total is a bigint column: 1.5 is refused by PostgreSQL, not by the handler.
    await h.store.append(`s-${unique()}`, [event('Added', { amount: 1.5 })]);
    await h.settled();
    const events = await wholeLog(h.store);
    const err = await applyLiveBatch(h.db.pool, projection, live, events).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionHandlerError);
    expect(err).toMatchObject({ projection: projection.name, table, phase: 'write' });
    expect((await readGeneration(h.db.pool, projection.name, 1))?.checkpoint).toEqual(START);
    expect(await viewRows(h.db.pool, table, 'stream')).toEqual([]);
  });
});
