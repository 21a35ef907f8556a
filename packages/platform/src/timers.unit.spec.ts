import { describe, expect, it } from 'vitest';
import { abortableSleep } from './timers.js';

describe('abortableSleep', () => {
  it('waits the time out', async () => {
    const started = Date.now();
    await abortableSleep(30, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('resolves on abort, and at once when already aborted', async () => {
    const stop = new AbortController();
    const started = Date.now();
    const waiting = abortableSleep(60_000, stop.signal);
    stop.abort();
    await waiting;
    await abortableSleep(60_000, stop.signal);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
