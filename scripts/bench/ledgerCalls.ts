import { type EventDataInput, toAppend } from '@parley/events';

const MODELS = ['gpt-4o-mini-2024-07-18', 'gpt-4o-2024-08-06', 'claude-3-5-sonnet-20241022'];

/** Whether the g-th bench call carries a prompt and response (every third). */
export const callHasPayload = (g: number): boolean => g % 3 === 0;

/**
 * The g-th LlmCallRecorded of the ledger benches: the catalog's example call (passed in, so that a
 * caller can import @parley/events/testing lazily), varied: four projects, ten calls a session,
 * three models, latencies and costs, one call a second, a payload on every third.
 */
export function benchLedgerCall(example: EventDataInput<'LlmCallRecorded'>, g: number) {
  return toAppend('LlmCallRecorded', {
    ...example,
    projectId: `bench-project-${g % 4}`,
    callId: `call-${g}`,
    sessionId: `sess-${Math.floor(g / 10)}`,
    model: MODELS[g % MODELS.length] as string,
    latencyMs: 200 + (g % 3000),
    cost: (g % 1000) / 100_000,
    startedAt: new Date(Date.UTC(2026, 9, 1) + g * 1000).toISOString(),
    ...(callHasPayload(g)
      ? {
          payload: {
            prompt: [{ role: 'user', content: 'Where is my order? It was due on Tuesday.' }],
            response: { role: 'assistant', content: 'Let me check the delivery status for you.' },
          },
        }
      : {}),
  });
}
