import fc from 'fast-check';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { fixedTenantProjects } from '../testing/testApp.js';
import { createJwtVerifier } from './jwtVerifier.js';
import { createSdkTokens, type SdkTokenClaims } from './sdkTokens.js';

const SECRET = 'sdk-token-secret-of-at-least-32-chars!!';
const OTHER = 'another-secret-of-at-least-32-characters';
const T0 = new Date('2026-11-21T10:00:00Z');
const tenantProjects = fixedTenantProjects({ ten_a: ['proj_a'] });

const text = (max: number) => fc.string({ minLength: 1, maxLength: max, unit: 'grapheme' });
const claimsArb: fc.Arbitrary<SdkTokenClaims> = fc.record(
  {
    tenantId: text(128),
    projectId: text(128),
    channelId: text(128),
    origin: fc.oneof(
      fc.webUrl().map((u) => new URL(u).origin),
      text(200),
    ),
    sub: text(512),
  },
  { requiredKeys: ['tenantId', 'projectId', 'sub'] },
);

const base: SdkTokenClaims = { tenantId: 'ten_a', projectId: 'proj_a', sub: 'visitor_1' };

/** A token signed by hand, for claims or headers `issue` would never produce. */
function forge(payload: Record<string, unknown>, options: { secret?: string; typ?: string } = {}) {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: options.typ ?? 'sdk+jwt' })
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}
const exp = Math.floor(T0.getTime() / 1000) + 600;
const valid = { typ: 'sdk', tenant_id: 'ten_a', project_id: 'proj_a', sub: 'visitor_1', exp };

describe('createSdkTokens', () => {
  it('round-trips any claims, with expiresAt ttlSeconds after issue', async () => {
    const tokens = createSdkTokens({ secret: SECRET, ttlSeconds: 300, now: () => T0 });
    await fc.assert(
      fc.asyncProperty(claimsArb, async (claims) => {
        const issued = await tokens.issue(claims);
        expect(issued.expiresAt).toEqual(new Date(T0.getTime() + 300_000));
        const verified = await tokens.verify(issued.token);
        expect(verified).toEqual({ ok: true, claims, expiresAt: issued.expiresAt });
      }),
      { numRuns: 200 },
    );
  });

  it('verifies a token issued before the shared HS256 module (same key, header and claims)', async () => {
    // Issued by the former createSdkTokens (its own jose code) at 2026-11-26T15:00:00Z, ttl 900 s.
    const issuedBefore =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6InNkaytqd3QifQ.eyJ0eXAiOiJzZGsiLCJ0ZW5hbnRfaWQiOiJ0ZW5fMSIsInByb2plY3RfaWQiOiJwcmpfMSIsImNoYW5uZWxfaWQiOiJzZGtjXzAxMjM0NTY3ODlhYmNkZWYiLCJvcmlnaW4iOiJodHRwczovL3Nob3AuZXhhbXBsZS5jb20iLCJzdWIiOiJ2aXNpdG9yLTEiLCJleHAiOjE3OTU3MDYxMDAsImlhdCI6MTc5NTcwNTIwMH0.iXrxTI_1y5aUJAgHKCQ_FHi2xszGC3pjWpaqYQnDrFY';
    const secret = 'a-fixed-test-secret-of-at-least-32-characters';
    const at = (iso: string) => createSdkTokens({ secret, now: () => new Date(iso) });
    const claims = {
      tenantId: 'ten_1',
      projectId: 'prj_1',
      channelId: 'sdkc_0123456789abcdef',
      origin: 'https://shop.example.com',
      sub: 'visitor-1',
    };
    expect(await at('2026-11-26T15:10:00Z').verify(issuedBefore)).toEqual({
      ok: true,
      claims,
      expiresAt: new Date('2026-11-26T15:15:00Z'),
    });
    // And this module issues the very same token for the same claims at the same time.
    expect((await at('2026-11-26T15:00:00Z').issue(claims)).token).toBe(issuedBefore);
    expect(await at('2026-11-26T15:16:00Z').verify(issuedBefore)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a token with any one character changed', async () => {
    const tokens = createSdkTokens({ secret: SECRET, now: () => T0 });
    const { token } = await tokens.issue(base);
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(...'ABCDEFabcdef0123456789-_.'),
        async (at, replacement) => {
          fc.pre(token[at] !== replacement);
          // The last character of a base64url segment may carry unused bits: changing those keeps the bytes.
          fc.pre(at !== token.length - 1);
          const tampered = token.slice(0, at) + replacement + token.slice(at + 1);
          expect((await tokens.verify(tampered)).ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses an expired token beyond the 30 s clock tolerance', async () => {
    let now = T0;
    const tokens = createSdkTokens({ secret: SECRET, ttlSeconds: 60, now: () => now });
    const { token } = await tokens.issue(base);
    now = new Date(T0.getTime() + 89_000);
    expect((await tokens.verify(token)).ok).toBe(true);
    now = new Date(T0.getTime() + 91_000);
    expect(await tokens.verify(token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses another secret, a wrong or missing typ, a user JWT and alg none', async () => {
    const tokens = createSdkTokens({ secret: SECRET, now: () => T0 });
    const other = createSdkTokens({ secret: OTHER, now: () => T0 });
    expect(await tokens.verify((await other.issue(base)).token)).toEqual({ ok: false, reason: 'signature' });
    expect(await tokens.verify(await forge(valid))).toMatchObject({ ok: true });
    expect(await tokens.verify(await forge({ ...valid, typ: 'user' }))).toEqual({
      ok: false,
      reason: 'claims',
    });
    const { typ: _typ, ...untyped } = valid;
    expect(await tokens.verify(await forge(untyped))).toEqual({ ok: false, reason: 'claims' });
    expect(await tokens.verify(await forge(valid, { typ: 'JWT' }))).toEqual({ ok: false, reason: 'claims' });
    const userJwt = await new SignJWT({ tenant_id: 'ten_a', project_ids: ['proj_a'], scope: 'chat.write' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user_1')
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(SECRET));
    expect((await tokens.verify(userJwt)).ok).toBe(false);
    const [, body] = (await forge(valid)).split('.');
    const none = `${Buffer.from('{"alg":"none","typ":"sdk+jwt"}').toString('base64url')}.${body}.`;
    expect((await tokens.verify(none)).ok).toBe(false);
    expect(await tokens.verify('not-a-token')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses claims out of bounds, when issuing and when verifying', async () => {
    const tokens = createSdkTokens({ secret: SECRET, now: () => T0 });
    await expect(tokens.issue({ ...base, sub: '' })).rejects.toThrow();
    await expect(tokens.issue({ ...base, projectId: 'p'.repeat(129) })).rejects.toThrow();
    expect(await tokens.verify(await forge({ ...valid, sub: 's'.repeat(513) }))).toEqual({
      ok: false,
      reason: 'claims',
    });
    expect(await tokens.verify(await forge({ ...valid, project_id: 42 }))).toEqual({
      ok: false,
      reason: 'claims',
    });
  });

  it('is never taken for a user JWT, even under the same secret', async () => {
    const tokens = createSdkTokens({ secret: SECRET });
    const verifyJwt = createJwtVerifier({ secret: SECRET, expandScopes: (s) => s, tenantProjects });
    expect(await verifyJwt((await tokens.issue(base)).token)).toEqual({ ok: false, reason: 'claims' });
  });

  it('needs a secret of 32 characters and a ttl in 1..86400', () => {
    expect(() => createSdkTokens({ secret: 'short' })).toThrow(/32/);
    expect(() => createSdkTokens({ secret: SECRET, ttlSeconds: 0 })).toThrow(/ttlSeconds/);
    expect(() => createSdkTokens({ secret: SECRET, ttlSeconds: 86_401 })).toThrow(/ttlSeconds/);
    expect(() => createSdkTokens({ secret: SECRET, ttlSeconds: 1.5 })).toThrow(/ttlSeconds/);
  });
});
