import { type EventData, type ParleyEvent, sessionStream, toAppend } from '@parley/events';
import { silentLogger } from '@parley/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEndedError } from '../errors.js';
import { createPriceCards } from '../pricing/index.js';
import { createProviderRegistry } from '../providers/index.js';
import type { LlmProvider, LlmRequest } from '../providers/types.js';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { createRuntime } from './runtime.js';
import type { Runtime } from './types.js';

/**
 * Each runtime keeps the views of the sessions it ran the last turn of (SessionViewCache). Two
 * runtimes on one log stand for two API processes: a turn must still see everything the other one
 * appended in between (its messages in the model's history, its end), and every turn must land as
 * one contiguous batch.
 */
const requests: LlmRequest[] = [];
const echo: LlmProvider = {
  name: 'openai-compatible',
  async complete(req) {
    requests.push(req);
    return {
      text: `echo ${req.messages.at(-1)?.content ?? ''}`,
      toolCalls: [],
      finishReason: 'stop',
      usage: {
        inputTokens: 1,
        cachedTokens: 0,
        completionTokens: 1,
        reasoningTokens: 0,
        outputTokens: 1,
        totalTokens: 2,
      },
      latencyMs: 1,
      timeToFirstTokenMs: 1,
      streamingUsed: false,
      statusCode: 200,
      provider: 'openai-compatible',
      model: 'gpt-4o',
    };
  },
};

let h: RuntimeHarness;
let other: Runtime;
beforeAll(async () => {
  h = await createRuntimeHarness({ providers: [echo] });
  await h.agents.create(h.projectId, { name: 'echo', provider: 'openai-compatible', model: 'gpt-4o' });
  other = createRuntime({
    pool: h.db.pool,
    store: h.store,
    providers: createProviderRegistry({}, { providers: [echo] }),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
});
afterAll(() => h?.close());

const turn = (runtime: Runtime, message: string, sessionId?: string) =>
  runtime.runTurn({
    projectId: h.projectId,
    tenantId: h.tenantId,
    message,
    ...(sessionId === undefined ? {} : { sessionId }),
  });
const texts = (events: ParleyEvent[], type: 'MessageReceived' | 'AgentReplied') =>
  events.flatMap((e) => (e.type === type ? [(e.data as EventData<typeof type>).text] : []));

describe('session views kept between turns', () => {
  it('a turn sees what another process appended since this one’s last turn', async () => {
    const first = await turn(h.runtime, 'one');
    await turn(h.runtime, 'two', first.sessionId);
    await turn(other, 'three', first.sessionId);
    requests.length = 0;
    await turn(h.runtime, 'four', first.sessionId);
    expect(requests[0]?.messages.filter((m) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'echo two' },
      { role: 'user', content: 'three' },
      { role: 'assistant', content: 'echo three' },
      { role: 'user', content: 'four' },
    ]);
    const events = await h.events(first.sessionId);
    expect(texts(events, 'MessageReceived')).toEqual(['one', 'two', 'three', 'four']);
    expect(texts(events, 'AgentReplied')).toEqual(['echo one', 'echo two', 'echo three', 'echo four']);
    expect(events.map((e) => e.recorded.revision)).toEqual(events.map((_, i) => BigInt(i)));
  });

  it('a turn from a kept view matches one from the log, event for event', async () => {
    const kept = await turn(h.runtime, 'a');
    await turn(h.runtime, 'b', kept.sessionId);
    requests.length = 0;
    await turn(h.runtime, 'c', kept.sessionId);
    const fromKept = requests[0]?.messages;
    const read = await turn(other, 'a');
    await turn(h.runtime, 'b', read.sessionId); // h.runtime has no view of it: reads the log
    requests.length = 0;
    await turn(other, 'c', read.sessionId); // other's view is stale: reads the log again
    expect(requests[0]?.messages).toEqual(fromKept);
  });

  it('a long session (past the model history limit) gets the same history kept as read', async () => {
    const first = await turn(h.runtime, 'm0');
    for (let i = 1; i < 30; i++) await turn(h.runtime, `m${i}`, first.sessionId);
    requests.length = 0;
    await turn(h.runtime, 'kept', first.sessionId);
    const history = () => requests[0]?.messages.filter((m) => m.role !== 'system').slice(0, -1);
    const fromKept = history();
    // The other runtime has no view of the session: it reads the stream.
    requests.length = 0;
    await turn(other, 'read', first.sessionId);
    const fromLog = history();
    // Both sent the 50 messages before their own; the log's are one turn further on.
    expect(fromKept).toHaveLength(50);
    expect(fromLog).toHaveLength(50);
    expect(fromLog?.slice(0, -2)).toEqual(fromKept?.slice(2));
  });

  it('a session another process ended is refused, and one ended by an event appended directly too', async () => {
    const first = await turn(h.runtime, 'hello');
    await other.endSession(h.projectId, first.sessionId, 'api');
    await expect(turn(h.runtime, 'again', first.sessionId)).rejects.toBeInstanceOf(SessionEndedError);

    const second = await turn(h.runtime, 'hello');
    const events = await h.events(second.sessionId);
    await h.store.append(
      sessionStream(second.sessionId),
      [
        toAppend(
          'SessionEnded',
          {
            sessionId: second.sessionId,
            projectId: h.projectId,
            status: 'ended',
            reason: 'api',
            endedAt: new Date().toISOString(),
          },
          { tenantId: h.tenantId },
        ),
      ],
      { expectedRevision: events.at(-1)!.recorded.revision },
    );
    await expect(turn(h.runtime, 'again', second.sessionId)).rejects.toBeInstanceOf(SessionEndedError);
  });
});
