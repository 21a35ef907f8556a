import { eventDataArbitraries } from '@parley/events/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INGEST_ITEM_KINDS, type IngestItemKind } from './items.js';
import { prepareItems, prepareItemsCheckedTwice } from './prepareItems.js';

const KINDS = Object.keys(INGEST_ITEM_KINDS) as IngestItemKind[];
const scope = { tenantId: 'ten_1', projectId: 'prj_1', recordingRetentionDays: 2 };
/** Like the real one: may give an empty key, or one too long for the event. */
const normalise = (raw: string) => raw.trim().repeat(raw.startsWith('+') ? 1 : 3);

/** Keys the server sets, keys only items have, and keys no schema knows. */
const oddKey = fc.constantFrom(
  'projectId',
  'tenantId',
  'callerNumberKey',
  'retentionExpiresAt',
  'callerNumber',
  'sessionId',
  'startedAt',
  'extra',
);
const oddValue = fc.oneof(
  fc.anything(),
  fc.string({ maxLength: 600 }),
  fc.constantFrom('', ' ', '+44 20 7183 0000', '2026-11-21T08:00:00Z', 'ten_1', 'prj_1', 'other'),
);

/** A valid item of a kind (its event's data less the scope), then changed at a few keys. */
const itemOf = (kind: IngestItemKind) =>
  fc
    .tuple(
      eventDataArbitraries[INGEST_ITEM_KINDS[kind]] as fc.Arbitrary<Record<string, unknown>>,
      fc.array(fc.tuple(fc.oneof(oddKey, fc.string()), oddValue, fc.boolean()), { maxLength: 3 }),
      fc.oneof(fc.constant(null), fc.string({ maxLength: 300 }), fc.anything()),
    )
    .map(([eventData, changes, id]) => {
      const { projectId: _p, tenantId: _t, callerNumberKey: _k, retentionExpiresAt: _r, ...data } = eventData;
      for (const [key, value, remove] of changes) {
        if (remove) delete data[key];
        else data[key] = value;
      }
      return { id: id ?? `item-${kind}`, type: kind, data };
    });

const anyItem = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KINDS).chain(itemOf) },
  { weight: 1, arbitrary: fc.anything() },
  {
    weight: 1,
    arbitrary: fc.record({
      id: fc.anything(),
      type: fc.oneof(fc.constantFrom(...KINDS), fc.string()),
      data: fc.anything(),
    }),
  },
);

describe('prepareItems checks a plain item once', () => {
  it('gives exactly what checking every item twice gives: events, errors, paths and messages', () => {
    fc.assert(
      fc.property(fc.array(anyItem, { maxLength: 8 }), (items) => {
        expect(prepareItems(items, scope, normalise)).toEqual(
          prepareItemsCheckedTwice(items, scope, normalise),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('accepts the valid items of every kind, through the shortcut', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), fc.string({ minLength: 1, maxLength: 40 }), (kind, id) =>
        fc.assert(
          fc.property(eventDataArbitraries[INGEST_ITEM_KINDS[kind]], (eventData) => {
            const { projectId: _p, tenantId: _t, ...data } = eventData as Record<string, unknown>;
            const item = { id, type: kind, data };
            const [prepared] = prepareItems([item], scope, normalise);
            expect(prepared?.ok).toBe(true);
            expect(prepared).toEqual(prepareItemsCheckedTwice([item], scope, normalise)[0]);
          }),
          { numRuns: 20 },
        ),
      ),
      { numRuns: 30 },
    );
  });
});
