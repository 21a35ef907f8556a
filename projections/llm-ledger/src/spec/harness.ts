import { type EventDataInput, streamForLlmCall, toAppend, upcast } from '@parley/events';
import { createProjectionHarness, type ProjectionHarness } from '@parley/projection-runner/testing';
import { llmLedgerProjection } from '../llmLedgerProjection.js';

export type CallInput = EventDataInput<'LlmCallRecorded'>;

/** A fresh database with the log, the registry and a running llm-ledger projection. */
export interface Harness extends ProjectionHarness {
  /** Appends each call to its stream (session-<id> or llm-<projectId>); returns the event ids. */
  record(calls: readonly CallInput[]): Promise<string[]>;
}

export async function createHarness(options: { batchSize?: number } = {}): Promise<Harness> {
  const h = await createProjectionHarness({ projection: llmLedgerProjection, upcast, ...options });
  return {
    ...h,
    async record(calls) {
      const byStream = new Map<string, ReturnType<typeof toAppend>[]>();
      for (const call of calls) {
        const stream = streamForLlmCall(call);
        const events = byStream.get(stream) ?? [];
        events.push(toAppend('LlmCallRecorded', call));
        byStream.set(stream, events);
      }
      for (const [stream, events] of byStream) await h.append(stream, events);
      return [...byStream.values()].flat().map((e) => e.eventId);
    },
  };
}
