import { describe, expect, it } from 'vitest';
import { toErrorReply } from '../errors/toErrorReply.js';
import { createExecutionQueue } from './executionQueue.js';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('execution queue', () => {
  it('runs `concurrency` at once, lines up `depth`, refuses the next with 429 QUEUE_FULL and Retry-After', async () => {
    const queue = createExecutionQueue({ concurrency: 2, depth: 3 });
    const gate = deferred();
    const started: number[] = [];
    const results = Array.from({ length: 8 }, (_, i) =>
      (async () => {
        try {
          await queue.run(async () => {
            started.push(i);
            await gate.promise;
            return i;
          });
          return 'ran';
        } catch (err) {
          return toErrorReply(err, { family: 'platform', requestId: 'r' });
        }
      })(),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(queue.stats()).toMatchObject({ active: 2, waiting: 3, refused: 3 });
    gate.resolve();
    const outcomes = await Promise.all(results);
    expect(outcomes.filter((o) => o === 'ran')).toHaveLength(5);
    const refused = outcomes.filter((o) => o !== 'ran') as Array<ReturnType<typeof toErrorReply>>;
    expect(refused).toHaveLength(3);
    for (const reply of refused) {
      expect(reply.status).toBe(429);
      expect(reply.body).toEqual({
        success: false,
        error: { code: 'QUEUE_FULL', message: expect.any(String) },
        retryAfterMs: expect.any(Number),
      });
      expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(queue.stats()).toMatchObject({ active: 0, waiting: 0, maxActive: 2, maxWaiting: 3 });
  });

  it('an item aborted while waiting leaves the line', async () => {
    const queue = createExecutionQueue({ concurrency: 1, depth: 1 });
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const controller = new AbortController();
    const second = queue.run(async () => 'never', controller.signal);
    controller.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    expect(queue.stats().waiting).toBe(0);
    // The line has room again.
    const third = queue.run(async () => 'third');
    gate.resolve();
    await first;
    expect(await third).toBe('third');
  });
});
