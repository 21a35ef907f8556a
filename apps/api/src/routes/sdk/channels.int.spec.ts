import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import {
  channelsSdkMigrations,
  createSdkChannelStore,
  createSdkChannelTokens,
  type SdkChannelStore,
} from '@parley/channels';
import { createInProcessRateLimiter, createJwtVerifier, createSdkTokens } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

const SDK_SECRET = 'sdk-secret-for-the-sdk-channel-tests!!';
const JWT_SECRET = 'jwt-secret-for-the-sdk-channel-tests!!';
const BASE_URL = 'https://parley.example/prefix/';

let db: TestDatabase;
let auth: AuthStore;
let store: SdkChannelStore;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let publicKeyId: string;
let secondPublicKeyId: string;
let revokedPublicKeyId: string;
let otherPublicKeyId: string;
let writeKey: string;
let readKey: string;
let connectionsKey: string;
let otherKey: string;
const tokens = createSdkChannelTokens({ secret: SDK_SECRET });

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsSdkMigrations]);
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'shop' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  const pk = async (p: string) =>
    (await auth.createPublicApiKey({ projectId: p, allowedOrigins: ['https://shop.example'] })).id;
  publicKeyId = await pk(projectId);
  secondPublicKeyId = await pk(projectId);
  revokedPublicKeyId = await pk(projectId);
  await auth.revokePublicApiKey(revokedPublicKeyId);
  otherPublicKeyId = await pk(otherProjectId);
  const key = async (p: string, scopes: string[]) =>
    (await auth.createApiKey({ projectId: p, name: scopes.join(','), scopes })).key;
  writeKey = await key(projectId, ['sdk_channels.write']);
  readKey = await key(projectId, ['sdk_channels.read']);
  connectionsKey = await key(projectId, ['channels.write']);
  otherKey = await key(otherProjectId, ['sdk_channels.write']);
  store = createSdkChannelStore(db.pool);
  const common = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
  };
  const routes = {
    verifyApiKey: (k: string) => auth.verifyApiKey(k),
    verifyJwt: createJwtVerifier({
      secret: JWT_SECRET,
      expandScopes,
      tenantProjects: (t, p) => auth.tenantProjects(t, p),
    }),
    channels: store,
  };
  app = await buildApp({ ...common, sdkChannels: { ...routes, tokens, publicBaseUrl: BASE_URL } });
  unconfigured = await buildApp({ ...common, sdkChannels: { ...routes, tokens: null } });
});
afterAll(async () => {
  await app?.close();
  await unconfigured?.close();
  await db?.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const base = (p = projectId) => `/api/projects/${p}/sdk-channels`;
const call = (method: Method, url: string, key: string | null, payload?: object, on = app) =>
  on.inject({
    method,
    url,
    headers: key === null ? {} : { 'x-api-key': key },
    ...(payload === undefined ? {} : { payload }),
  });
const widget = (extra: Record<string, unknown> = {}) => ({
  name: 'Shop widget',
  channelType: 'web',
  publicApiKeyId: publicKeyId,
  ...extra,
});
const created = async (extra: Record<string, unknown> = {}) =>
  (await call('POST', base(), writeKey, widget(extra))).json().channel as { id: string };
const code = (res: { json(): unknown }) => (res.json() as { error: { code: string } }).error.code;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('SDK channels: happy paths', () => {
  it('creates with every field, shows, lists, updates and deletes', async () => {
    const config = {
      mode: 'unified',
      position: 'bottom-left',
      theme: { primaryColor: '#0055ff', fontSize: 15, rounded: true },
      welcomeMessage: 'Hi, how can we help?',
      placeholderText: 'Type a message',
      voiceEnabled: true,
      chatEnabled: true,
    };
    const res = await call('POST', base(), writeKey, {
      name: 'Shop widget',
      channelType: 'web',
      publicApiKeyId: publicKeyId,
      deploymentId: 'dep_7',
      config,
      environment: 'staging',
      followEnvironment: false,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const channel = res.json().channel;
    expect(res.json()).toEqual({
      success: true,
      channel: {
        id: expect.stringMatching(/^sdkc_[0-9A-Za-z]{16}$/),
        tenantId,
        projectId,
        name: 'Shop widget',
        channelType: 'web',
        deploymentId: 'dep_7',
        publicApiKeyId: publicKeyId,
        config,
        isActive: true,
        environment: 'staging',
        followEnvironment: false,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });

    const shown = await call('GET', `${base()}/${channel.id}`, readKey);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ success: true, channel });

    const listed = await call('GET', base(), readKey);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().success).toBe(true);
    expect(listed.json().channels).toContainEqual(channel);
    expect(listed.json().pagination).toEqual({ total: listed.json().channels.length, limit: 50, offset: 0 });

    const patched = await call('PATCH', `${base()}/${channel.id}`, writeKey, {
      name: 'Shop widget v2',
      publicApiKeyId: secondPublicKeyId,
      deploymentId: null,
      config: { mode: 'chat' },
      isActive: false,
      environment: 'production',
      followEnvironment: true,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({
      success: true,
      channel: {
        ...channel,
        name: 'Shop widget v2',
        publicApiKeyId: secondPublicKeyId,
        deploymentId: null,
        config: { mode: 'chat' },
        isActive: false,
        environment: 'production',
        followEnvironment: true,
        updatedAt: expect.stringMatching(ISO),
      },
    });

    const deleted = await call('DELETE', `${base()}/${channel.id}`, writeKey);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call('GET', `${base()}/${channel.id}`, readKey)).statusCode).toBe(404);
  });

  it('pages with limit and offset and reports the total', async () => {
    const fresh = (await auth.createProject({ tenantId, slug: 'paged' })).id;
    const k = (await auth.createApiKey({ projectId: fresh, name: 'w', scopes: ['sdk_channels.write'] })).key;
    const pk = (await auth.createPublicApiKey({ projectId: fresh, allowedOrigins: ['https://a.example'] }))
      .id;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call('POST', base(fresh), k, widget({ name: `w${i}`, publicApiKeyId: pk }));
      ids.push(res.json().channel.id);
    }
    const page = await call('GET', `${base(fresh)}?limit=2&offset=1`, k);
    expect(page.json().channels.map((c: { id: string }) => c.id)).toEqual(ids.slice(1, 3));
    expect(page.json().pagination).toEqual({ total: 4, limit: 2, offset: 1 });
    const past = await call('GET', `${base(fresh)}?limit=200&offset=9`, k);
    expect(past.json()).toEqual({
      success: true,
      channels: [],
      pagination: { total: 4, limit: 200, offset: 9 },
    });
  });

  it('creates share and embed tokens: signed, typed, with the page URL under PUBLIC_BASE_URL', async () => {
    const channel = await created();
    const embed = await call('POST', `${base()}/${channel.id}/token`, writeKey);
    expect(embed.statusCode).toBe(201);
    expect(embed.headers['cache-control']).toBe('no-store');
    const body = embed.json();
    expect(body).toEqual({
      success: true,
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      kind: 'embed',
      channelId: channel.id,
      expiresAt: expect.stringMatching(ISO),
      url: `https://parley.example/prefix/sdk/embed?token=${body.token}`,
    });
    const lifetime = Date.parse(body.expiresAt) - Date.now();
    expect(Math.abs(lifetime - 30 * 86_400_000)).toBeLessThan(60_000);
    const verified = await tokens.verify(body.token);
    expect(verified).toMatchObject({
      ok: true,
      claims: { kind: 'embed', tenantId, projectId, channelId: channel.id },
    });

    const share = await call('POST', `${base()}/${channel.id}/token`, writeKey, {
      kind: 'share',
      expiresInSeconds: 3600,
    });
    expect(share.statusCode).toBe(201);
    expect(share.json()).toMatchObject({ kind: 'share', channelId: channel.id });
    expect(share.json().url).toBe(`https://parley.example/prefix/sdk/share?token=${share.json().token}`);
    expect(Math.abs(Date.parse(share.json().expiresAt) - Date.now() - 3_600_000)).toBeLessThan(60_000);

    // Under the same secret (or a JWT_SECRET set equal to it), never an SDK session token nor a user JWT.
    expect(await createSdkTokens({ secret: SDK_SECRET }).verify(body.token)).toMatchObject({ ok: false });
    expect(
      await createJwtVerifier({
        secret: SDK_SECRET,
        expandScopes,
        tenantProjects: (t, p) => auth.tenantProjects(t, p),
      })(body.token),
    ).toMatchObject({
      ok: false,
    });
  });

  it('takes a user JWT with the scope, bound to its projects', async () => {
    const jwt = await new SignJWT({
      tenant_id: tenantId,
      project_ids: [projectId],
      scope: 'sdk_channels.read',
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user_1')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const headers = { authorization: `Bearer ${jwt}` };
    expect((await app.inject({ method: 'GET', url: base(), headers })).statusCode).toBe(200);
    const write = await app.inject({ method: 'POST', url: base(), headers, payload: widget() });
    expect(write.statusCode).toBe(403);
    expect(write.json().required).toBe('channel:create');
    expect((await app.inject({ method: 'GET', url: base(otherProjectId), headers })).statusCode).toBe(404);
  });
});

describe('SDK channels: errors', () => {
  it('401 without a credential or with an unknown key, on every route', async () => {
    const id = (await created()).id;
    const routes: Array<[Method, string]> = [
      ['GET', base()],
      ['POST', base()],
      ['GET', `${base()}/${id}`],
      ['PATCH', `${base()}/${id}`],
      ['DELETE', `${base()}/${id}`],
      ['POST', `${base()}/${id}/token`],
    ];
    for (const [method, url] of routes) {
      for (const key of [null, 'plat_unknownkey000000000000000000000000000']) {
        const res = await call(method, url, key, method === 'GET' || method === 'DELETE' ? undefined : {});
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json()).toEqual({ error: expect.any(String), requestId: expect.any(String) });
      }
    }
  });

  it('403 PERMISSION_REQUIRED naming the permission each route needs; 403 for a pk_ key', async () => {
    const id = (await created()).id;
    const cases: Array<[Method, string, string, string, object | undefined]> = [
      ['GET', base(), connectionsKey, 'channel:read', undefined],
      ['POST', base(), readKey, 'channel:create', widget()],
      ['GET', `${base()}/${id}`, connectionsKey, 'channel:read', undefined],
      ['PATCH', `${base()}/${id}`, readKey, 'channel:update', { name: 'x' }],
      ['DELETE', `${base()}/${id}`, readKey, 'channel:delete', undefined],
      ['POST', `${base()}/${id}/token`, readKey, 'channel:create', {}],
    ];
    for (const [method, url, key, permission, payload] of cases) {
      const res = await call(method, url, key, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PERMISSION_REQUIRED', message: expect.stringContaining(permission) },
        required: permission,
      });
    }
    const publicKey = (await auth.getPublicApiKey(publicKeyId))?.key;
    const pk = await app.inject({ method: 'GET', url: base(), headers: { 'x-api-key': publicKey! } });
    expect(pk.statusCode).toBe(403);
  });

  it("404 PROJECT_NOT_FOUND for another project's path, on every route", async () => {
    const id = (await created()).id;
    for (const [method, url] of [
      ['GET', base()],
      ['POST', base()],
      ['GET', `${base()}/${id}`],
      ['PATCH', `${base()}/${id}`],
      ['DELETE', `${base()}/${id}`],
      ['POST', `${base()}/${id}/token`],
    ] as Array<[Method, string]>) {
      const res = await call(
        method,
        url,
        otherKey,
        method === 'POST' || method === 'PATCH' ? widget() : undefined,
      );
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(code(res)).toBe('PROJECT_NOT_FOUND');
    }
  });

  it('404 SDK_CHANNEL_NOT_FOUND for an unknown channel, or one of another project', async () => {
    const foreign = await store.create(otherProjectId, widget({ publicApiKeyId: otherPublicKeyId }) as never);
    for (const id of ['sdkc_0000000000000000', foreign.id]) {
      for (const [method, url, key, payload] of [
        ['GET', `${base()}/${id}`, readKey, undefined],
        ['PATCH', `${base()}/${id}`, writeKey, { name: 'x' }],
        ['PATCH', `${base()}/${id}`, writeKey, {}],
        ['DELETE', `${base()}/${id}`, writeKey, undefined],
        ['POST', `${base()}/${id}/token`, writeKey, { kind: 'share' }],
      ] as Array<[Method, string, string, object | undefined]>) {
        const res = await call(method, url, key, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'SDK_CHANNEL_NOT_FOUND', message: `SDK channel not found: ${id}` },
        });
      }
    }
  });

  it('400 VALIDATION_ERROR for bad bodies, queries and public keys', async () => {
    const id = (await created()).id;
    const bad: Array<[Method, string, object | undefined]> = [
      ['GET', `${base()}?limit=0`, undefined],
      ['GET', `${base()}?limit=201`, undefined],
      ['GET', `${base()}?offset=-1`, undefined],
      ['GET', `${base()}?limit=ten`, undefined],
      ['GET', `${base()}?page=2`, undefined],
      ['POST', base(), { name: 'x', channelType: 'web' }],
      ['POST', base(), widget({ channelType: 'desktop' })],
      ['POST', base(), widget({ environment: 'qa' })],
      ['POST', base(), widget({ config: { welcomeMesage: 'typo' } })],
      ['POST', base(), widget({ config: { theme: { nested: { a: 1 } } } })],
      ['POST', base(), widget({ name: '' })],
      ['POST', base(), widget({ publicApiKeyId: revokedPublicKeyId })],
      ['POST', base(), widget({ publicApiKeyId: otherPublicKeyId })],
      ['POST', base(), widget({ publicApiKeyId: 'pkk_0000000000000000' })],
      ['PATCH', `${base()}/${id}`, { channelType: 'voice' }],
      ['PATCH', `${base()}/${id}`, { config: { mode: 'video' } }],
      ['PATCH', `${base()}/${id}`, { publicApiKeyId: revokedPublicKeyId }],
      ['PATCH', `${base()}/${id}`, { isActive: 'yes' }],
      ['POST', `${base()}/${id}/token`, { kind: 'link' }],
      ['POST', `${base()}/${id}/token`, { expiresInSeconds: 59 }],
      ['POST', `${base()}/${id}/token`, { expiresInSeconds: 31_536_001 }],
      ['POST', `${base()}/${id}/token`, { expiresInSeconds: 90.5 }],
      ['POST', `${base()}/${id}/token`, { audience: 'x' }],
    ];
    for (const [method, url, payload] of bad) {
      const res = await call(method, url, writeKey, payload);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(code(res)).toBe('VALIDATION_ERROR');
    }
    const unusable = await call('POST', base(), writeKey, widget({ publicApiKeyId: revokedPublicKeyId }));
    expect(unusable.json().error.message).toMatch(
      /publicApiKeyId .* not an active public key of this project/,
    );
  });

  it('503 SDK_NOT_CONFIGURED for tokens without SDK_TOKEN_SECRET; the rest still works', async () => {
    const id = (await created()).id;
    const res = await call('POST', `${base()}/${id}/token`, writeKey, {}, unconfigured);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'SDK_NOT_CONFIGURED', message: 'Service unavailable' },
    });
    expect((await call('GET', `${base()}/${id}`, readKey, undefined, unconfigured)).statusCode).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents the SDK channel operations in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const url = '/api/projects/:projectId/sdk-channels';
    const routes = [
      { method: 'GET', url },
      { method: 'POST', url },
      { method: 'GET', url: `${url}/:channelId` },
      { method: 'PATCH', url: `${url}/:channelId` },
      { method: 'DELETE', url: `${url}/:channelId` },
      { method: 'POST', url: `${url}/:channelId/token` },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
  });
});
