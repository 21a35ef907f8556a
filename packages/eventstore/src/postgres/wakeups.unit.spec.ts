import type { Pool } from '@parley/platform';
import { silentLogger } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { createWakeups } from './wakeups.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pool whose every query is a pg_notify taking `ms`; records when each was sent. */
function notifyPool(ms = 1) {
  const sent: number[] = [];
  const pool = {
    async query() {
      sent.push(performance.now());
      await sleep(ms);
      return { rows: [] };
    },
  } as unknown as Pool;
  return { pool, sent };
}

const wakeupsOn = (pool: Pool, notifyIntervalMs: number) =>
  createWakeups({
    pool,
    channel: 'test',
    connectionString: undefined,
    logger: silentLogger(),
    notifyIntervalMs,
  });

describe('pg_notify throttling', () => {
  it('notifies at once after a quiet spell, then at most once per interval, and once after the last append', async () => {
    const { pool, sent } = notifyPool();
    const wakeups = wakeupsOn(pool, 40);
    const started = performance.now();
    wakeups.appended();
    expect(sent).toHaveLength(1);
    let last = started;
    while (performance.now() - started < 200) {
      wakeups.appended();
      last = performance.now();
      await sleep(2);
    }
    await sleep(100);
    // About 200 / 40 + 1 notifies for ~100 appends; the last one went out after the last append.
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.length).toBeLessThanOrEqual(8);
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(35);
    expect(sent.at(-1)!).toBeGreaterThanOrEqual(last);
    await wakeups.close();
  });

  it('wakes this process at every append, throttled or not', async () => {
    const { pool } = notifyPool();
    const wakeups = wakeupsOn(pool, 1_000);
    const before = wakeups.generation();
    for (let i = 0; i < 5; i++) wakeups.appended();
    expect(wakeups.generation()).toBe(before + 5);
    await wakeups.close();
  });

  it('close sends the notify still waiting for its interval', async () => {
    const { pool, sent } = notifyPool();
    const wakeups = wakeupsOn(pool, 10_000);
    wakeups.appended();
    wakeups.appended();
    await sleep(10);
    expect(sent).toHaveLength(1);
    await wakeups.close();
    expect(sent).toHaveLength(2);
  });

  it('with interval 0, one notify in flight and one more for the appends meanwhile', async () => {
    const { pool, sent } = notifyPool(20);
    const wakeups = wakeupsOn(pool, 0);
    for (let i = 0; i < 10; i++) wakeups.appended();
    await sleep(60);
    expect(sent).toHaveLength(2);
    await wakeups.close();
  });
});
