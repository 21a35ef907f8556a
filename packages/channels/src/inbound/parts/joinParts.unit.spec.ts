import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../types.js';
import { isValidPart, joinParts, PARTS_METADATA_KEY, type ReceivedPart } from './joinParts.js';

const part = (text: string, index: number, total: number): ReceivedPart => ({
  index,
  message: {
    externalMessageId: `id-${index}`,
    externalSessionKey: '447700900001',
    text,
    metadata: { provider: 'vonage', messageId: `id-${index}` },
    timestamp: `2020-01-01T12:00:0${index % 10}.000Z`,
    channelUserId: '447700900001',
    part: { group: 'ref', index, total },
  } satisfies NormalizedMessage,
});

/** A text cut into `cuts.length + 1` pieces at the given (sorted, distinct) positions. */
const pieces = fc
  .tuple(fc.string({ minLength: 2, maxLength: 200, unit: 'grapheme' }), fc.integer({ min: 2, max: 8 }))
  .chain(([text, n]) =>
    fc
      .uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), {
        minLength: Math.min(n - 1, text.length - 1),
        maxLength: Math.min(n - 1, text.length - 1),
      })
      .map((cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), text.length];
        return { text, parts: at.slice(1).map((end, i) => text.slice(at[i], end)) };
      }),
  )
  .filter(({ parts }) => parts.length >= 2);

describe('joinParts', () => {
  it('gives the original text whatever order and repeats the parts come in (property)', () => {
    fc.assert(
      fc.property(
        pieces,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.infiniteStream(fc.nat()),
        ({ text, parts }, repeats, seeds) => {
          const received = parts.map((t, i) => part(t, i + 1, parts.length));
          const duplicated = [
            ...received,
            ...repeats.map((r) => received[r % received.length] as ReceivedPart),
          ];
          const shuffled = duplicated
            .map((p) => ({ p, key: seeds.next().value as number }))
            .sort((a, b) => a.key - b.key)
            .map(({ p }) => p);
          const joined = joinParts(shuffled, parts.length);
          expect(joined.text).toBe(text);
          expect(joined.externalMessageId).toBe('id-1');
          expect(joined.timestamp).toBe(received[0]?.message.timestamp);
          expect(joined.part).toBeUndefined();
          expect(joined.metadata[PARTS_METADATA_KEY]).toEqual({
            group: 'ref',
            total: parts.length,
            received: parts.map((_, i) => i + 1),
            externalMessageIds: parts.map((_, i) => `id-${i + 1}`),
            complete: true,
          });
        },
      ),
    );
  });

  it('joins what came, in order, when parts are missing: not complete, first present part’s id (property)', () => {
    fc.assert(
      fc.property(pieces, fc.infiniteStream(fc.boolean()), ({ parts }, keep) => {
        const all = parts.map((t, i) => part(t, i + 1, parts.length));
        const kept = all.filter(() => keep.next().value === true);
        if (kept.length === 0) return;
        const joined = joinParts([...kept].reverse(), parts.length);
        expect(joined.text).toBe(kept.map((p) => p.message.text).join(''));
        expect(joined.externalMessageId).toBe(kept[0]?.message.externalMessageId);
        expect(joined.metadata[PARTS_METADATA_KEY]).toMatchObject({
          received: kept.map((p) => p.index),
          complete: kept.length === parts.length,
        });
      }),
    );
  });

  it('refuses no parts; part descriptions out of range are not parts', () => {
    expect(() => joinParts([], 2)).toThrow();
    expect(isValidPart({ group: 'r', index: 1, total: 2 })).toBe(true);
    expect(isValidPart({ group: 'r', index: 2, total: 2 })).toBe(true);
    for (const bad of [
      { group: 'r', index: 0, total: 2 },
      { group: 'r', index: 3, total: 2 },
      { group: 'r', index: 1, total: 1 },
      { group: 'r', index: 1, total: 256 },
      { group: 'r', index: 1.5, total: 2 },
      { group: '', index: 1, total: 2 },
    ])
      expect(isValidPart(bad)).toBe(false);
  });
});
