import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createSdkChannelTokens } from './sdkChannelTokens.js';

const SECRET = 's'.repeat(40);
const claims = {
  kind: 'embed' as const,
  tenantId: 'ten_1',
  projectId: 'prj_1',
  channelId: 'sdkc_0123456789abcdef',
};

describe('SDK channel share/embed tokens', () => {
  it('issues and verifies, with the default lifetime per kind or the one asked', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const tokens = createSdkChannelTokens({ secret: SECRET, now: () => now });
    const embed = await tokens.issue(claims);
    expect(embed.expiresAt.toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(await tokens.verify(embed.token)).toEqual({
      ok: true,
      claims,
      tokenId: embed.tokenId,
      expiresAt: embed.expiresAt,
    });
    const share = await tokens.issue({ ...claims, kind: 'share' });
    expect(share.expiresAt.toISOString()).toBe('2026-01-08T00:00:00.000Z');
    expect(share.tokenId).not.toBe(embed.tokenId);
    expect((await tokens.issue(claims, 60)).expiresAt.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    await expect(tokens.issue(claims, 59)).rejects.toThrow(/expiresInSeconds/);
    await expect(tokens.issue(claims, 31_536_001)).rejects.toThrow(/expiresInSeconds/);
    const [header] = embed.token.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'sdk-channel+jwt',
    });
  });

  it('verifies a token issued before the shared HS256 module (same key, header and claims)', async () => {
    // Issued by the former createSdkChannelTokens (its own jose code) at 2026-11-26T15:00:00Z.
    const issuedBefore =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6InNkay1jaGFubmVsK2p3dCJ9.eyJ0eXAiOiJzZGtfY2hhbm5lbCIsImtpbmQiOiJlbWJlZCIsInRlbmFudF9pZCI6InRlbl8xIiwicHJvamVjdF9pZCI6InByal8xIiwiY2hhbm5lbF9pZCI6InNka2NfMDEyMzQ1Njc4OWFiY2RlZiIsImp0aSI6ImNiMDcyMWNlLTA5MTQtNDIzYS04ZTBjLTBkYjBiYWFhZTM5NSIsImV4cCI6MTc5ODI5NzIwMCwiaWF0IjoxNzk1NzA1MjAwfQ.uDcImXVsW7nU2m7CgJulHeRjrsWaoo46EvWjVcGZ1b4';
    const secret = 'a-fixed-test-secret-of-at-least-32-characters';
    const at = (iso: string) => createSdkChannelTokens({ secret, now: () => new Date(iso) });
    expect(await at('2026-12-01T00:00:00Z').verify(issuedBefore)).toEqual({
      ok: true,
      claims,
      tokenId: 'cb0721ce-0914-423a-8e0c-0db0baaae395',
      expiresAt: new Date('2026-12-26T15:00:00Z'),
    });
    expect(await at('2026-12-27T00:00:00Z').verify(issuedBefore)).toEqual({ ok: false, reason: 'expired' });
    expect(await createSdkChannelTokens({ secret: 'x'.repeat(40) }).verify(issuedBefore)).toEqual({
      ok: false,
      reason: 'signature',
    });
  });

  it('refuses expired tokens, another secret, and tokens of another type under the same secret', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const tokens = createSdkChannelTokens({ secret: SECRET, now: () => now });
    const { token } = await tokens.issue(claims, 60);
    now = new Date('2026-01-01T00:02:00Z');
    expect(await tokens.verify(token)).toEqual({ ok: false, reason: 'expired' });
    now = new Date('2026-01-01T00:00:00Z');
    const other = createSdkChannelTokens({ secret: 'o'.repeat(40), now: () => now });
    expect(await other.verify(token)).toEqual({ ok: false, reason: 'signature' });
    expect(await tokens.verify('not-a-jwt')).toEqual({ ok: false, reason: 'malformed' });
    const key = new TextEncoder().encode(SECRET);
    const exp = Math.floor(now.getTime() / 1000) + 60;
    // An SDK session token's shape (sdkTokens.ts in @parley/http): wrong header typ.
    const session = await new SignJWT({ typ: 'sdk', tenant_id: 't', project_id: 'p', sub: 'u', exp })
      .setProtectedHeader({ alg: 'HS256', typ: 'sdk+jwt' })
      .sign(key);
    expect(await tokens.verify(session)).toEqual({ ok: false, reason: 'claims' });
    // Right header, wrong claims.
    const forged = await new SignJWT({ typ: 'sdk', kind: 'embed', jti: 'x', exp })
      .setProtectedHeader({ alg: 'HS256', typ: 'sdk-channel+jwt' })
      .sign(key);
    expect(await tokens.verify(forged)).toEqual({ ok: false, reason: 'claims' });
  });

  it('needs a secret of 32 characters', () => {
    expect(() => createSdkChannelTokens({ secret: 'short' })).toThrow(/32/);
  });
});
