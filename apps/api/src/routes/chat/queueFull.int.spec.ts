import { createExecutionQueue } from '@parley/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatWorld, createChatWorld, listeningChatApp } from '../../testing/chatFixture.js';
import { withExecutionQueue } from './executionQueue.js';

/**
 * 429 QUEUE_FULL (spec 000 §7), measured: with 2 turns at once and 3 waiting, 8 concurrent
 * messages (each turn held ~300 ms by the scripted model) give 5 answers and 3 refusals, each
 * refusal with Retry-After and `retryAfterMs`; the queue saw at most 2 running and 3 waiting.
 */
let world: ChatWorld;
let url: string;
let close: () => Promise<void>;
const queue = createExecutionQueue({ concurrency: 2, depth: 3 });

beforeAll(async () => {
  world = await createChatWorld();
  const listening = await listeningChatApp(world, { runtime: withExecutionQueue(world.runtime, queue) });
  url = listening.url;
  close = () => listening.app.close();
});
afterAll(async () => {
  await close?.();
  await world?.close();
});

describe('the execution queue in front of the runtime', () => {
  it('answers 429 QUEUE_FULL with Retry-After once TURN_CONCURRENCY + TURN_QUEUE_DEPTH turns are in', async () => {
    const { projectId, key } = await world.newProject();
    const send = () =>
      fetch(`${url}/api/v1/chat/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ projectId, message: 'slow /delay 300' }),
      });
    const responses = await Promise.all(Array.from({ length: 8 }, send));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    for (const res of responses.filter((r) => r.status === 429)) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({
        success: false,
        error: { code: 'QUEUE_FULL', message: expect.any(String) },
        retryAfterMs: expect.any(Number),
      });
      expect(body.retryAfterMs).toBeGreaterThanOrEqual(1000);
    }
    expect(queue.stats()).toMatchObject({ active: 0, waiting: 0, maxActive: 2, maxWaiting: 3, refused: 3 });
  });
});
