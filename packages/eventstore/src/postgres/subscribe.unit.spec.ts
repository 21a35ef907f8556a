import type { Pool } from '@parley/platform';
import { silentLogger } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import type { Position, RecordedEvent } from '../types.js';
import { subscribeAll } from './subscribe.js';
import { createWakeups } from './wakeups.js';

const event = (n: number): RecordedEvent => ({
  eventId: `e${n}`,
  type: 'T',
  schemaVersion: 1,
  data: {},
  metadata: {},
  stream: 's',
  revision: BigInt(n),
  position: { commit: 10n, prepare: BigInt(n) },
  recordedAt: new Date(0),
});

/** A log the test fills by hand; records every read. */
function fakeLog() {
  const events: RecordedEvent[] = [];
  const reads: Array<{ after: Position; at: number }> = [];
  const readBatch = async (after: Position, maxCount: number) => {
    reads.push({ after, at: performance.now() });
    return events.filter((e) => e.position.prepare > after.prepare).slice(0, maxCount);
  };
  return { events, reads, readBatch };
}

function setup(pollIntervalMs: number) {
  const log = fakeLog();
  const pool = { query: async () => ({ rows: [] }) } as unknown as Pool;
  const wakeups = createWakeups({ pool, channel: 'c', connectionString: undefined, logger: silentLogger() });
  const closing = new AbortController();
  const controller = new AbortController();
  const iterator = subscribeAll(
    { readBatch: log.readBatch, wakeups, pollIntervalMs, closing: closing.signal },
    { signal: controller.signal, batchSize: 2 },
  );
  return { log, wakeups, controller, closing, iterator };
}

describe('subscribeAll', () => {
  it('reads full batches back to back, then waits', async () => {
    const { log, iterator, controller } = setup(10_000);
    log.events.push(event(1), event(2), event(3));
    const got = [await iterator.next(), await iterator.next(), await iterator.next()];
    expect(got.map((r) => r.value?.eventId)).toEqual(['e1', 'e2', 'e3']);
    expect(log.reads.map((r) => r.after.prepare)).toEqual([0n, 2n]);
    controller.abort();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('re-reads at once on a wake-up, and soon again when the woken read found nothing yet', async () => {
    const { log, wakeups, iterator, controller } = setup(10_000);
    const pending = iterator.next();
    await new Promise((r) => setTimeout(r, 20));
    wakeups.appended(); // committed, but (as when an older transaction holds readers back) not readable yet
    await new Promise((r) => setTimeout(r, 20));
    log.events.push(event(1));
    const started = performance.now();
    expect((await pending).value?.eventId).toBe('e1');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(log.reads.length).toBeGreaterThanOrEqual(3);
    controller.abort();
  });

  it('polls when no wake-up comes', async () => {
    const { log, iterator, controller } = setup(50);
    const pending = iterator.next();
    await new Promise((r) => setTimeout(r, 20));
    log.events.push(event(1));
    expect((await pending).value?.eventId).toBe('e1');
    controller.abort();
  });

  it('ends when the store closes', async () => {
    const { iterator, closing } = setup(10_000);
    const pending = iterator.next();
    await new Promise((r) => setTimeout(r, 20));
    closing.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
