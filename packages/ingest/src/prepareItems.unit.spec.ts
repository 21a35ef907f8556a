import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveEventId, prepareItems } from './prepareItems.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('deriveEventId', () => {
  it('is a deterministic version-8 UUID of (project, item id)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (project, item) => {
        const id = deriveEventId(project, item);
        expect(id).toMatch(UUID);
        expect(deriveEventId(project, item)).toBe(id);
      }),
    );
  });

  it('differs when the project or the item id differs', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (p1, p2, item) => {
        fc.pre(p1 !== p2);
        expect(deriveEventId(p1, item)).not.toBe(deriveEventId(p2, item));
      }),
    );
    expect(deriveEventId('p', 'a\u0000b')).not.toBe(deriveEventId('p\u0000a', 'b'));
  });
});

describe('prepareItems', () => {
  it('never throws and gives one result per item, in order, whatever it is sent', () => {
    fc.assert(
      fc.property(fc.array(fc.anything(), { maxLength: 20 }), (items) => {
        const prepared = prepareItems(items, { tenantId: 't', projectId: 'p' }, (raw) => raw);
        expect(prepared.map((p) => p.index)).toEqual(items.map((_, i) => i));
        expect(prepared.every((p) => !p.ok)).toBe(true);
      }),
    );
  });
});
