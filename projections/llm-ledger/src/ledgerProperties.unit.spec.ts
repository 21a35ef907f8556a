import { randomUUID } from 'node:crypto';
import { isEventType, toAppend } from '@parley/events';
import { anyEventArbitrary, eventDataArbitraries, recordedFrom } from '@parley/events/testing';
import type { RecordedEvent } from '@parley/eventstore';
import { emptyState, type MemoryState, memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { llmLedgerProjection } from './llmLedgerProjection.js';

// Few projects, sessions and call ids, so that calls collide (recorded again) and share projects.
const call = fc
  .tuple(
    eventDataArbitraries.LlmCallRecorded,
    fc.constantFrom('p1', 'p2'),
    fc.option(fc.constantFrom('s1', 's2', 's3'), { nil: undefined }),
    fc.constantFrom('c1', 'c2', 'c3', 'c4'),
  )
  .map(([data, projectId, sessionId, callId]) => {
    const { sessionId: _drop, ...rest } = data;
    return toAppend('LlmCallRecorded', {
      ...rest,
      projectId,
      callId,
      tenantId: 't1',
      ...(sessionId === undefined ? {} : { sessionId }),
    });
  });

const otherKnown = anyEventArbitrary
  .filter((e) => e.type !== 'LlmCallRecorded')
  .map((e) => toAppend(e.type, e.data as never));

const unknownType = fc
  .record({
    type: fc.string({ minLength: 1, maxLength: 20 }).filter((t) => !isEventType(t)),
    data: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  })
  .map(({ type, data }) => ({ eventId: randomUUID(), type, data: data as Record<string, unknown> }));

type Appended = ReturnType<typeof toAppend>;

/** Gives the events positions 1..n after `from`, as one log would. */
function atPositions(events: readonly Appended[], from = 0): RecordedEvent[] {
  return events.map((event, i) => {
    const n = BigInt(from + i + 1);
    return recordedFrom(event, { position: { commit: n, prepare: n } });
  });
}

function foldInBatches(events: readonly RecordedEvent[], cuts: readonly number[], start?: MemoryState) {
  let state = start ?? emptyState(llmLedgerProjection);
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    state = projectInMemory(llmLedgerProjection, events.slice(at, cut), state);
    at = Math.max(at, cut);
  }
  return projectInMemory(llmLedgerProjection, events.slice(at), state);
}

const rows = (state: MemoryState) => ({
  llm_ledger: memoryRows(state, 'llm_ledger'),
  llm_ledger_payloads: memoryRows(state, 'llm_ledger_payloads'),
});

describe('llm-ledger properties', () => {
  it('a rebuild (one batch) equals incremental projection (any batches)', () => {
    fc.assert(
      fc.property(
        fc.array(call, { maxLength: 30 }),
        fc.array(fc.nat({ max: 30 }), { maxLength: 6 }),
        (calls, cuts) => {
          const events = atPositions(calls);
          const rebuilt = projectInMemory(llmLedgerProjection, events);
          expect(rows(foldInBatches(events, cuts))).toEqual(rows(rebuilt));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a replayed batch changes nothing, and the calls recorded again leave the same rows', () => {
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 20 }), (calls) => {
        const events = atPositions(calls);
        const once = projectInMemory(llmLedgerProjection, events);
        // The same positions again: the runner's checkpoint skips them.
        expect(projectInMemory(llmLedgerProjection, events, once)).toEqual(once);
        // The same events delivered again later in the log: every row ends as it was.
        const again = projectInMemory(llmLedgerProjection, atPositions(calls, events.length), once);
        expect(rows(again)).toEqual(rows(once));
      }),
      { numRuns: 150 },
    );
  });

  it('ignores events of unknown types and of every other known type', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            call.map((e) => ({ e, noise: false })),
            fc.oneof(otherKnown, unknownType).map((e) => ({ e, noise: true })),
          ),
          {
            maxLength: 40,
          },
        ),
        (mixed) => {
          const withNoise = projectInMemory(llmLedgerProjection, atPositions(mixed.map((m) => m.e)));
          const without = projectInMemory(
            llmLedgerProjection,
            atPositions(mixed.filter((m) => !m.noise).map((m) => m.e)),
          );
          expect(rows(withNoise)).toEqual(rows(without));
        },
      ),
      { numRuns: 100 },
    );
  });
});
