import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentInputSchema, agentNameSchema, agentPatchSchema } from './schema.js';

const nameChar = fc.constantFrom(...'abcXYZ019_.-'.split(''));

describe('agent schemas', () => {
  it('accepts exactly the names that fit URLs and CLI arguments', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), (name) => {
        const ok = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name);
        expect(agentNameSchema.safeParse(name).success).toBe(ok);
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom('a', 'Z', '7'), fc.array(nameChar, { maxLength: 63 }), (first, rest) => {
        expect(agentNameSchema.safeParse(first + rest.join('')).success).toBe(true);
      }),
    );
  });

  it('fills defaults and refuses unknown fields', () => {
    expect(agentInputSchema.parse({ name: 'a' })).toEqual({
      name: 'a',
      provider: 'scripted',
      systemPrompt: '',
      tools: [],
      guardrails: {},
    });
    expect(agentInputSchema.safeParse({ name: 'a', colour: 'red' }).success).toBe(false);
    expect(agentPatchSchema.safeParse({ name: 'renamed' }).success).toBe(false);
    expect(agentPatchSchema.parse({})).toEqual({});
  });

  it('refuses duplicate tool names and bad guardrails', () => {
    expect(agentInputSchema.safeParse({ name: 'a', tools: [{ name: 't' }, { name: 't' }] }).success).toBe(
      false,
    );
    expect(agentInputSchema.safeParse({ name: 'a', tools: [{ name: 'bad name' }] }).success).toBe(false);
    expect(agentInputSchema.safeParse({ name: 'a', guardrails: { maxReplyChars: 0 } }).success).toBe(false);
    expect(agentInputSchema.safeParse({ name: 'a', guardrails: { blockedTerms: [''] } }).success).toBe(false);
  });
});
