import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedTenantProjects } from '../testing/testApp.js';
import { createJwtVerifier } from './jwtVerifier.js';

// The identity provider's JWKS, served by a local HTTP server as an IdP would.
let server: Server;
let jwksUrl: string;
let jwksRequests = 0;
const rsa = await generateKeyPair('RS256');
const ec = await generateKeyPair('ES256');
const stranger = await generateKeyPair('RS256');
const SECRET = 'hs256-secret-of-at-least-32-characters!!';
const expandScopes = (scopes: readonly string[]) => scopes.map((s) => s.replace('.', ':'));
const TENANTS = { tenant_a: ['proj_a', 'proj_a2'], tenant_b: ['proj_b'] };
const tenantProjects = fixedTenantProjects(TENANTS);

beforeAll(async () => {
  const keys = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ];
  server = createServer((req, res) => {
    jwksRequests += 1;
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const claims = { tenant_id: 'tenant_a', project_ids: ['proj_a'], scope: 'chat.write traces.read' };

function sign(
  alg: string,
  kid: string | undefined,
  key: Parameters<SignJWT['sign']>[0],
  extra: Record<string, unknown> = {},
) {
  return new SignJWT({ ...claims, ...extra })
    .setProtectedHeader(kid === undefined ? { alg } : { alg, kid })
    .setSubject('user_42')
    .setIssuer('https://idp.test')
    .setAudience('parley')
    .setExpirationTime('10m')
    .sign(key);
}

describe('createJwtVerifier against a JWKS', () => {
  it('verifies RS256 and ES256 tokens with the key their kid names, with issuer and audience', async () => {
    const verify = createJwtVerifier({
      jwksUrl,
      issuer: 'https://idp.test',
      audience: 'parley',
      expandScopes,
      tenantProjects,
    });
    for (const token of [
      await sign('RS256', 'rsa-1', rsa.privateKey),
      await sign('ES256', 'ec-1', ec.privateKey),
    ]) {
      expect(await verify(token)).toEqual({
        ok: true,
        caller: {
          subject: 'user_42',
          tenantId: 'tenant_a',
          projectIds: ['proj_a'],
          scopes: ['chat.write', 'traces.read'],
          permissions: ['chat:write', 'traces:read'],
        },
      });
    }
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it('refuses a token signed by a key outside the JWKS, a wrong issuer or audience, and HS256 without a secret', async () => {
    const verify = createJwtVerifier({
      jwksUrl,
      issuer: 'https://idp.test',
      audience: 'parley',
      expandScopes,
      tenantProjects,
    });
    expect(await verify(await sign('RS256', 'rsa-1', stranger.privateKey))).toEqual({
      ok: false,
      reason: 'signature',
    });
    expect(await verify(await sign('RS256', 'rsa-9', stranger.privateKey))).toEqual({
      ok: false,
      reason: 'signature',
    });
    const otherIssuer = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
      .setSubject('u')
      .setIssuer('https://evil.test')
      .setAudience('parley')
      .setExpirationTime('10m')
      .sign(rsa.privateKey);
    expect(await verify(otherIssuer)).toEqual({ ok: false, reason: 'claims' });
    const otherAudience = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
      .setSubject('u')
      .setIssuer('https://idp.test')
      .setAudience('someone-else')
      .setExpirationTime('10m')
      .sign(rsa.privateKey);
    expect(await verify(otherAudience)).toEqual({ ok: false, reason: 'claims' });
    const hs = await sign('HS256', undefined, new TextEncoder().encode(SECRET));
    expect(await verify(hs)).toEqual({ ok: false, reason: 'signature' });
  });

  it('takes both kinds when both a secret and a JWKS are configured; the token alg picks the key', async () => {
    const verify = createJwtVerifier({ secret: SECRET, jwksUrl, expandScopes, tenantProjects });
    expect((await verify(await sign('HS256', undefined, new TextEncoder().encode(SECRET)))).ok).toBe(true);
    expect((await verify(await sign('RS256', 'rsa-1', rsa.privateKey))).ok).toBe(true);
  });

  it('requires exp and refuses an expired token', async () => {
    const verify = createJwtVerifier({ jwksUrl, expandScopes, tenantProjects });
    const noExp = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
      .setSubject('u')
      .sign(rsa.privateKey);
    expect(await verify(noExp)).toEqual({ ok: false, reason: 'claims' });
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' })
      .setSubject('u')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 120)
      .sign(rsa.privateKey);
    expect(await verify(expired)).toEqual({ ok: false, reason: 'expired' });
  });

  it('says unavailable when the JWKS cannot be fetched', async () => {
    const verify = createJwtVerifier({
      jwksUrl: jwksUrl.replace('jwks.json', 'missing.json'),
      expandScopes,
      tenantProjects,
    });
    expect(await verify(await sign('RS256', 'rsa-1', rsa.privateKey))).toEqual({
      ok: false,
      reason: 'unavailable',
    });
  });

  it('refuses garbage as malformed', async () => {
    const verify = createJwtVerifier({ secret: SECRET, expandScopes, tenantProjects });
    expect(await verify('not.a.jwt')).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe("createJwtVerifier: the token's tenant and projects (issue 17)", () => {
  const verify = createJwtVerifier({ secret: SECRET, expandScopes, tenantProjects });
  const hs = (extra: Record<string, unknown>, omit: string[] = []) => {
    const body: Record<string, unknown> = { ...claims, ...extra };
    for (const name of omit) delete body[name];
    return new SignJWT(body)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user_42')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));
  };
  const projectsOf = async (token: string) => {
    const result = await verify(token);
    return result.ok ? result.caller.projectIds : result.reason;
  };

  it("keeps only the named projects that are the tenant's, in the token's order", async () => {
    expect(await projectsOf(await hs({ project_ids: ['proj_a2', 'proj_b', 'proj_a', 'proj_zz'] }))).toEqual([
      'proj_a2',
      'proj_a',
    ]);
    // The same project, claimed by a token of the tenant that owns it: reached.
    expect(await projectsOf(await hs({ tenant_id: 'tenant_b', project_ids: ['proj_a', 'proj_b'] }))).toEqual([
      'proj_b',
    ]);
  });

  it('refuses a token without tenant_id, or naming no tenant that exists, as without tenant context', async () => {
    expect(await verify(await hs({}, ['tenant_id']))).toEqual({ ok: false, reason: 'no_tenant' });
    expect(await verify(await hs({ tenant_id: 'tenant_nope', project_ids: ['proj_a'] }))).toEqual({
      ok: false,
      reason: 'unknown_tenant',
    });
  });

  it('never yields a project of another tenant, whatever the claims (property)', async () => {
    const tenantIds = [...Object.keys(TENANTS), 'tenant_nope'];
    const projectIds = [...Object.values(TENANTS).flat(), 'proj_zz'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tenantIds),
        fc.array(fc.constantFrom(...projectIds), { maxLength: 6 }),
        async (tenantId, named) => {
          const result = await verify(await hs({ tenant_id: tenantId, project_ids: named }));
          const owned: readonly string[] | undefined = TENANTS[tenantId as keyof typeof TENANTS];
          if (owned === undefined) {
            expect(result).toEqual({ ok: false, reason: 'unknown_tenant' });
            return;
          }
          if (!result.ok) throw new Error(`refused: ${result.reason}`);
          expect(result.caller.tenantId).toBe(tenantId);
          for (const id of result.caller.projectIds) expect(owned).toContain(id);
          expect(result.caller.projectIds).toEqual(named.filter((id) => owned.includes(id)));
        },
      ),
      { numRuns: 100 },
    );
  });
});
