import { describe, expect, it } from 'vitest';
import { throttledWriter } from './rebuildProgressWriter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('throttledWriter', () => {
  it('writes the newest value at once, then the newest again, at most once per interval, never two at a time', async () => {
    const written: { value: number; at: number }[] = [];
    let active = 0;
    let overlapped = false;
    const writer = throttledWriter(
      async (value: number) => {
        active++;
        overlapped ||= active > 1;
        written.push({ value, at: performance.now() });
        await sleep(5);
        active--;
      },
      60,
      () => {},
    );
    for (let i = 1; i <= 5; i++) writer.push(i);
    await sleep(20);
    writer.push(6);
    writer.push(7);
    await sleep(150);
    await writer.close();
    expect(written.map((w) => w.value)).toEqual([5, 7]);
    expect(written[1]!.at - written[0]!.at).toBeGreaterThanOrEqual(55);
    expect(overlapped).toBe(false);
  });

  it('close waits for the write in flight and drops what is pending; errors go to onError', async () => {
    const written: number[] = [];
    const errors: unknown[] = [];
    const writer = throttledWriter(
      async (value: number) => {
        await sleep(30);
        if (value === 1) throw new Error('boom');
        written.push(value);
      },
      1_000,
      (err) => errors.push(err),
    );
    writer.push(1);
    await sleep(10);
    writer.push(2);
    await writer.close();
    expect(errors).toHaveLength(1);
    expect(written).toEqual([]);
    writer.push(3);
    await sleep(10);
    expect(written).toEqual([]);
  });
});
