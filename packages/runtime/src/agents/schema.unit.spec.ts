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

describe('agent schemas: tools that act', () => {
  const http = {
    type: 'http',
    url: 'https://crm.example/{{args.id}}',
    auth: { type: 'bearer', secret: 'CRM' },
  };

  it('an http tool needs the secrets it names; a suspending tool must be http', () => {
    expect(
      agentInputSchema.safeParse({ name: 'a', tools: [{ name: 't', implementation: http }] }).success,
    ).toBe(false);
    const ok = agentInputSchema.parse({
      name: 'a',
      tools: [{ name: 't', implementation: http }],
      secrets: { CRM: 'x' },
    });
    expect(ok.tools[0]?.implementation).toMatchObject({ method: 'POST', timeoutMs: 10_000, retries: 1 });
    expect(
      agentInputSchema.safeParse({ name: 'a', tools: [{ name: 't', suspend: { timeoutSeconds: 60 } }] })
        .success,
    ).toBe(false);
    const headerSecret = {
      type: 'http',
      url: 'https://x.example',
      headers: { 'x-key': 'k {{secrets.KEY}}' },
    };
    expect(
      agentInputSchema.safeParse({ name: 'a', tools: [{ name: 't', implementation: headerSecret }] }).error
        ?.issues[0]?.message,
    ).toBe('secrets not given: KEY');
  });

  it('system tool names are reserved; switches, handoffs and limits are checked', () => {
    expect(agentInputSchema.safeParse({ name: 'a', tools: [{ name: 'handoff' }] }).success).toBe(false);
    expect(agentInputSchema.safeParse({ name: 'a', maxIterations: 0 }).success).toBe(false);
    expect(agentInputSchema.safeParse({ name: 'a', systemTools: { teleport: true } }).success).toBe(false);
    expect(
      agentInputSchema.safeParse({
        name: 'a',
        handoffs: { remote: [{ name: 'p', url: 'ftp://x' }] },
      }).success,
    ).toBe(false);
    expect(
      agentInputSchema.parse({
        name: 'a',
        handoffs: { remote: [{ name: 'p', url: 'https://p.example/a2a' }] },
      }).handoffs,
    ).toEqual({ remote: [{ name: 'p', url: 'https://p.example/a2a', description: '' }] });
    expect(agentPatchSchema.parse({ secrets: { OLD: null } })).toEqual({ secrets: { OLD: null } });
  });
});
