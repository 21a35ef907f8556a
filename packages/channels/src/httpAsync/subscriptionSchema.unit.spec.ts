import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  secretRotationSchema,
  subscriptionInputSchema,
  subscriptionPatchSchema,
  WEBHOOK_EVENT_TYPES,
} from './subscriptionSchema.js';
import { newSubscriptionId, newSubscriptionSecret } from './subscriptionStore.js';

const base = { displayName: 'Bot', callbackUrl: 'https://receiver.example/hook', events: ['agent.response'] };
const eventType = fc.constantFrom(...WEBHOOK_EVENT_TYPES);
const b64token = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9\-._~+/]{16,200}$/),
    fc.integer({ min: 0, max: 2 }).map((n) => '='.repeat(n)),
  )
  .map(([body, pad]) => body + pad);

describe('subscription schemas', () => {
  it('stores any non-empty choice of event types once each, in canonical order, whatever the input order', () => {
    fc.assert(
      fc.property(fc.array(eventType, { minLength: 1, maxLength: 16 }), (events) => {
        const parsed = subscriptionInputSchema.parse({ ...base, events }).events;
        expect(parsed).toEqual(WEBHOOK_EVENT_TYPES.filter((e) => events.includes(e)));
        expect(new Set(parsed).size).toBe(parsed.length);
        // Normalising again changes nothing.
        expect(subscriptionPatchSchema.parse({ events: parsed }).events).toEqual(parsed);
      }),
    );
  });

  it('refuses any event type outside the three', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(s)),
        (other) => {
          expect(
            subscriptionInputSchema.safeParse({ ...base, events: ['agent.response', other] }).success,
          ).toBe(false);
        },
      ),
    );
  });

  it('trims display names and keeps them 1-200 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 260 }), (name) => {
        const parsed = subscriptionInputSchema.safeParse({ ...base, displayName: name });
        const trimmed = name.trim();
        expect(parsed.success).toBe(trimmed.length >= 1 && trimmed.length <= 200);
        if (parsed.success) expect(parsed.data.displayName).toBe(trimmed);
      }),
    );
  });

  it('takes bearer tokens that are safe in a header and refuses any with another character', () => {
    fc.assert(
      fc.property(b64token, (token) => {
        expect(
          subscriptionInputSchema.safeParse({ ...base, authMode: 'bearer', bearerToken: token }).success,
        ).toBe(true);
        expect(secretRotationSchema.safeParse({ bearerToken: token }).success).toBe(true);
      }),
    );
    fc.assert(
      fc.property(
        b64token,
        fc.constantFrom(' ', '\r', '\n', '\t', ':', ',', '"', '\u0000', 'é'),
        fc.nat(),
        (token, bad, at) => {
          const i = at % token.length;
          const broken = token.slice(0, i) + bad + token.slice(i);
          expect(secretRotationSchema.safeParse({ bearerToken: broken }).success).toBe(false);
        },
      ),
    );
  });

  it('asks for a bearer token exactly when the auth mode is bearer', () => {
    const token = 'tok_0123456789abcdef';
    expect(subscriptionInputSchema.parse(base)).toMatchObject({ authMode: 'hmac', status: 'active' });
    expect(subscriptionInputSchema.safeParse({ ...base, authMode: 'bearer' }).success).toBe(false);
    expect(subscriptionInputSchema.safeParse({ ...base, bearerToken: token }).success).toBe(false);
    expect(
      subscriptionInputSchema.safeParse({ ...base, authMode: 'bearer', bearerToken: token }).success,
    ).toBe(true);
    expect(subscriptionPatchSchema.safeParse({ authMode: 'bearer' }).success).toBe(false);
    expect(subscriptionPatchSchema.safeParse({ status: 'deleted' }).success).toBe(false);
  });

  it('makes ids and secrets of the documented shape', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const id = newSubscriptionId();
      expect(id).toMatch(/^sub_[0-9A-Za-z]{16}$/);
      ids.add(id);
      const secret = newSubscriptionSecret();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    }
    expect(ids.size).toBe(500);
  });
});
