import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryEventId, derivedUuid, inboundJobId, sendJobId } from './ids.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('derived ids', () => {
  // Pinned before derivedUuid moved to @parley/platform: ids already in logs must not change.
  it('keep the parley-channels namespace', () => {
    expect(inboundJobId('conn-1', 'msg-1')).toBe('8241d9fd-5733-8475-9be7-ee2dcbd24113');
  });

  it('are version-8 UUIDs, the same for the same inputs', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (kind, key) => {
        const id = derivedUuid(kind, key);
        expect(id).toMatch(UUID_V8);
        expect(derivedUuid(kind, key)).toBe(id);
      }),
    );
  });

  it('differ between messages, connections and kinds', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })),
        fc.tuple(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })),
        ([c1, m1], [c2, m2]) => {
          fc.pre(c1 !== c2 || m1 !== m2);
          expect(inboundJobId(c1, m1)).not.toBe(inboundJobId(c2, m2));
          expect(inboundJobId(c1, m1)).not.toBe(sendJobId(c1, m1));
          expect(sendJobId(c1, m1)).not.toBe(deliveryEventId(c1, m1));
        },
      ),
    );
  });

  it('do not let a separator inside an id make two pairs collide', () => {
    expect(inboundJobId('a\u0000b', 'c')).not.toBe(inboundJobId('a', 'b\u0000c'));
  });
});
