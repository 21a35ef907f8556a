import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorableText, isUnstorableTextError, toStorableText } from './storableText.js';
import { createTestDatabase, type TestDatabase } from './testing/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

const risky = fc
  .array(fc.oneof(fc.string(), fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d\ude00')), {
    maxLength: 5,
  })
  .map((parts) => parts.join(''));

/** Whether PostgreSQL stores `text` unchanged as text and inside jsonb (as a value and as a key). */
async function storesUnchanged(text: string): Promise<boolean> {
  try {
    const { rows } = await db.pool.query<{ t: string; j: { k: Record<string, string> } }>(
      'select $1::text as t, $2::jsonb as j',
      [text, { k: { [text]: text } }],
    );
    return rows[0]?.t === text && rows[0]?.j.k[text] === text;
  } catch (err) {
    expect(isUnstorableTextError(err)).toBe(true);
    return false;
  }
}

describe('storable text against PostgreSQL', () => {
  it('isStorableText is exactly what PostgreSQL stores unchanged; refusals are recognised', async () => {
    await fc.assert(
      fc.asyncProperty(risky, async (text) => {
        expect(await storesUnchanged(text)).toBe(isStorableText(text));
        expect(await storesUnchanged(toStorableText(text))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
