import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGE_METADATA_LIMITS, messageMetadataSchema, renderPrompt } from './messageMetadata.js';

describe('messageMetadataSchema', () => {
  it('accepts a small JSON object', () => {
    const value = { customerTier: 'gold', order: { id: 'A-1', items: [1, 2] }, vip: true };
    expect(messageMetadataSchema.parse(value)).toEqual(value);
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'x'],
    ['null', null],
  ])('refuses %s', (_name, value) => {
    expect(messageMetadataSchema.safeParse(value).success).toBe(false);
  });

  it('refuses more than maxBytes of JSON, counted in UTF-8 bytes', () => {
    // {"k":"…"} is 8 bytes of punctuation and key around the value.
    const fits = { k: 'a'.repeat(MESSAGE_METADATA_LIMITS.maxBytes - 8) };
    expect(messageMetadataSchema.safeParse(fits).success).toBe(true);
    expect(messageMetadataSchema.safeParse({ k: `${fits.k}a` }).success).toBe(false);
    // é is two bytes: half as many characters reach the limit.
    expect(
      messageMetadataSchema.safeParse({ k: 'é'.repeat((MESSAGE_METADATA_LIMITS.maxBytes - 8) / 2 + 1) })
        .success,
    ).toBe(false);
  });

  it('refuses nesting deeper than maxDepth and over-long or empty keys', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 1; i < MESSAGE_METADATA_LIMITS.maxDepth; i++) deep = { d: deep };
    expect(messageMetadataSchema.safeParse(deep).success).toBe(true);
    expect(messageMetadataSchema.safeParse({ d: deep }).success).toBe(false);
    expect(messageMetadataSchema.safeParse({ d: [[[[[1]]]]] }).success).toBe(false);
    expect(messageMetadataSchema.safeParse({ ['k'.repeat(65)]: 1 }).success).toBe(false);
    expect(messageMetadataSchema.safeParse({ '': 1 }).success).toBe(false);
  });

  it('never throws, and whatever it accepts is within every limit (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = messageMetadataSchema.safeParse(value);
        if (!result.success) return;
        expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
        expect(Buffer.byteLength(JSON.stringify(result.data))).toBeLessThanOrEqual(
          MESSAGE_METADATA_LIMITS.maxBytes,
        );
      }),
    );
  });
});

describe('renderPrompt', () => {
  const metadata = { tier: 'gold', order: { id: 'A-1', total: 12.5 }, tags: ['a', 'b'] };

  it('fills both spellings, strings as they are and other values as JSON', () => {
    expect(
      renderPrompt(
        'Tier {{session.messageMetadata.tier}}, order {{ message_metadata.order.id }} ({{message_metadata.order.total}}), tags {{message_metadata.tags}}',
        metadata,
      ),
    ).toBe('Tier gold, order A-1 (12.5), tags ["a","b"]');
    expect(renderPrompt('All: {{message_metadata}}', metadata)).toBe(`All: ${JSON.stringify(metadata)}`);
  });

  it('inserts nothing for a missing path or a turn without metadata, and leaves other braces alone', () => {
    expect(renderPrompt('[{{message_metadata.nope.deeper}}]', metadata)).toBe('[]');
    expect(renderPrompt('[{{session.messageMetadata.tier}}]', undefined)).toBe('[]');
    expect(renderPrompt('JSON like {{"a": 1}} and {{user.name}} stay', metadata)).toBe(
      'JSON like {{"a": 1}} and {{user.name}} stay',
    );
    // Inherited properties are not metadata.
    expect(renderPrompt('[{{message_metadata.constructor}}]', metadata)).toBe('[]');
  });

  it('is the identity on prompts without placeholders (property)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
        (p, m) => {
          fc.pre(!/\{\{\s*(session\.messageMetadata|message_metadata)/.test(p));
          expect(renderPrompt(p, m)).toBe(p);
        },
      ),
    );
  });
});
