import { type AuthStore, authMigrations, createAuthStore, type PublicApiKeyRecord } from '@parley/auth';
import { channelsSdkMigrations, createSdkChannelStore } from '@parley/channels';
import { createInProcessRateLimiter, createSdkTokens } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { sdkChannelLookup } from './widgetConfig.js';

const SDK_SECRET = 'sdk-token-secret-for-the-bootstrap-tests';
const sdk = createSdkTokens({ secret: SDK_SECRET, ttlSeconds: 300 });
const SHOP = 'https://shop.example.com';
const LOCAL = 'http://localhost:5173';
const EVIL = 'https://evil.example.com';

let db: TestDatabase;
let auth: AuthStore;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let project: { id: string; tenantId: string };
let other: { id: string; tenantId: string };
let key: PublicApiKeyRecord;
let voiceKey: PublicApiKeyRecord;
let noChatKey: PublicApiKeyRecord;
let revokedKey: PublicApiKeyRecord;
let otherKey: PublicApiKeyRecord;
let channelId: string;
let seq = 0;

async function newApp(withTokens: boolean): Promise<FastifyInstance> {
  return buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    sdkBootstrap: {
      publicKeys: auth,
      channels: sdkChannelLookup(createSdkChannelStore(db.pool)),
      sdkTokens: withTokens ? sdk : null,
    },
  });
}

/** An SDK channel row as the SDK channels API would write it. */
async function insertChannel(
  p: { id: string; tenantId: string },
  publicKeyId: string,
  fields: { type?: string; active?: boolean; config?: unknown },
): Promise<string> {
  seq += 1;
  const id = `sdkc_${String(seq).padStart(16, '0')}`;
  await db.pool.query(
    `insert into sdk_channels (id, tenant_id, project_id, name, channel_type, public_api_key_id, config, is_active)
     values ($1, $2, $3, 'widget', $4, $5, $6, $7)`,
    [
      id,
      p.tenantId,
      p.id,
      fields.type ?? 'web',
      publicKeyId,
      JSON.stringify(fields.config ?? {}),
      fields.active ?? true,
    ],
  );
  return id;
}

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsSdkMigrations]);
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Shop' });
  project = await auth.createProject({ tenantId: tenant.id, slug: 'shop' });
  other = await auth.createProject({ tenantId: tenant.id, slug: 'other' });
  key = await auth.createPublicApiKey({ projectId: project.id, allowedOrigins: [SHOP, LOCAL] });
  voiceKey = await auth.createPublicApiKey({
    projectId: project.id,
    allowedOrigins: [SHOP],
    permissions: { voice: true },
  });
  noChatKey = await auth.createPublicApiKey({
    projectId: project.id,
    allowedOrigins: [SHOP],
    permissions: { chat: false, voice: true },
  });
  revokedKey = await auth.createPublicApiKey({ projectId: project.id, allowedOrigins: [SHOP] });
  await auth.revokePublicApiKey(revokedKey.id);
  otherKey = await auth.createPublicApiKey({
    projectId: other.id,
    allowedOrigins: ['https://other.example'],
  });
  channelId = await insertChannel(project, voiceKey.id, {
    config: {
      mode: 'unified',
      position: 'top-left',
      theme: { primaryColor: '#0055ff', fontSize: 14 },
      welcomeMessage: 'Welcome to the shop',
      placeholderText: 'Ask about an order',
      voiceEnabled: true,
      chatEnabled: true,
    },
  });
  // Not the one served: inactive, or not `web`.
  await insertChannel(project, voiceKey.id, { active: false, config: { welcomeMessage: 'inactive' } });
  await insertChannel(project, voiceKey.id, { type: 'api', config: { welcomeMessage: 'api' } });
  app = await newApp(true);
  unconfigured = await newApp(false);
});
afterAll(async () => {
  await app.close();
  await unconfigured.close();
  await db.close();
});

const getConfig = (projectId: string, headers: Record<string, string>) =>
  app.inject({ method: 'GET', url: `/api/v1/sdk/config/${projectId}`, headers });
const init = (body: unknown, headers: Record<string, string>, on: FastifyInstance = app) =>
  on.inject({ method: 'POST', url: '/api/v1/sdk/init', headers, payload: body as object });

function expectError(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toEqual({ success: false, error: { code, message: expect.any(String) } });
}
function expectUnauthorized(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(401);
  expect(res.json()).toEqual({ error: 'Missing or invalid public key', requestId: expect.any(String) });
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
}
function expectCors(res: LightMyRequestResponse, origin: string | undefined): void {
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(res.headers.vary).toMatch(/Origin/);
}

describe('GET /api/v1/sdk/config/{projectId}', () => {
  it("answers §2.5 from the key's active web channel, with CORS for the allowed origin", async () => {
    const res = await getConfig(project.id, { 'x-api-key': voiceKey.key, origin: SHOP });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      projectId: project.id,
      permissions: { chat: true, voice: true },
      config: {
        mode: 'unified',
        position: 'top-left',
        theme: { primaryColor: '#0055ff', fontSize: 14 },
        welcomeMessage: 'Welcome to the shop',
        placeholderText: 'Ask about an order',
        voiceEnabled: true,
        chatEnabled: true,
      },
    });
    expectCors(res, SHOP);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers the defaults when no channel is bound to the key', async () => {
    const res = await getConfig(project.id, { 'x-api-key': key.key, origin: LOCAL });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      projectId: project.id,
      permissions: { chat: true, voice: false },
      config: {
        mode: 'chat',
        position: 'bottom-right',
        theme: {},
        welcomeMessage: 'Hi! How can we help?',
        placeholderText: 'Type your message…',
        voiceEnabled: false,
        chatEnabled: true,
      },
    });
    expectCors(res, LOCAL);
  });

  it('never enables more than the key permits', async () => {
    await insertChannel(project, noChatKey.id, { config: { mode: 'chat', chatEnabled: true } });
    const res = await getConfig(project.id, { 'x-api-key': noChatKey.key, origin: SHOP });
    expect(res.json()).toMatchObject({
      permissions: { chat: false, voice: true },
      config: { mode: 'voice', chatEnabled: false, voiceEnabled: true },
    });
  });

  it('401 without a key, with an unknown, revoked or platform key', async () => {
    expectUnauthorized(await getConfig(project.id, { origin: SHOP }));
    expectUnauthorized(await getConfig(project.id, { 'x-api-key': `pk_${'A'.repeat(32)}`, origin: SHOP }));
    expectUnauthorized(await getConfig(project.id, { 'x-api-key': revokedKey.key, origin: SHOP }));
    expectUnauthorized(await getConfig(project.id, { 'x-api-key': `plat_${'a'.repeat(55)}`, origin: SHOP }));
    // The init header is not the config header.
    expectUnauthorized(await getConfig(project.id, { 'x-public-key': key.key, origin: SHOP }));
  });

  it('403 ORIGIN_NOT_ALLOWED without an Origin or from an unlisted one, with no CORS header', async () => {
    for (const headers of [
      {},
      { origin: EVIL },
      { origin: 'https://shop.example.com.evil.example' },
      // A listed host without Origin: only a browser's same-origin request stands for its own origin.
      { host: 'localhost:5173' },
      { host: 'localhost:5173', 'sec-fetch-site': 'cross-site' },
      { host: 'evil.example.com', 'sec-fetch-site': 'same-origin' },
    ] as Record<string, string>[]) {
      const res = await getConfig(project.id, { 'x-api-key': key.key, ...headers });
      expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers.vary).toMatch(/Origin/);
    }
  });

  it('200 for a same-origin request (no Origin header) from a page served on a listed origin', async () => {
    // A page served by the API itself (the widget demo): browsers send no Origin with a same-origin GET.
    const res = await getConfig(project.id, {
      'x-api-key': key.key,
      host: 'localhost:5173',
      'sec-fetch-site': 'same-origin',
    });
    expect(res.statusCode, res.body).toBe(200);
    expectCors(res, LOCAL);
  });

  it("404 PROJECT_NOT_FOUND for another project or none, readable by the key's page", async () => {
    const res = await getConfig(other.id, { 'x-api-key': key.key, origin: SHOP });
    expectError(res, 404, 'PROJECT_NOT_FOUND');
    expectCors(res, SHOP);
    expectError(
      await getConfig('no-such-project', { 'x-api-key': key.key, origin: SHOP }),
      404,
      'PROJECT_NOT_FOUND',
    );
  });

  it('400 VALIDATION_ERROR for a project id over 128 characters', async () => {
    expectError(
      await getConfig('p'.repeat(129), { 'x-api-key': key.key, origin: SHOP }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('POST /api/v1/sdk/init', () => {
  it('201 with a token for the user, the channel and the origin', async () => {
    const before = Date.now();
    const res = await init(
      { projectId: project.id, userId: 'customer-42', channelId },
      { 'x-public-key': voiceKey.key, origin: SHOP },
    );
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      success: true,
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      tokenType: 'sdk',
      expiresAt: expect.any(String),
      expiresIn: 300,
      sessionUserId: 'customer-42',
      projectId: project.id,
    });
    const expiresAt = Date.parse(body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 300_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(await sdk.verify(body.token)).toEqual({
      ok: true,
      claims: {
        tenantId: project.tenantId,
        projectId: project.id,
        sub: 'customer-42',
        channelId,
        origin: SHOP,
      },
      expiresAt: new Date(expiresAt),
    });
    expectCors(res, SHOP);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('gives an anonymous visitor a fresh id', async () => {
    const a = await init({ projectId: project.id }, { 'x-public-key': key.key, origin: LOCAL });
    const b = await init({ projectId: project.id }, { 'x-public-key': key.key, origin: LOCAL });
    expect(a.statusCode, a.body).toBe(201);
    expect(a.json().sessionUserId).toMatch(/^anon_[0-9a-f-]{36}$/);
    expect(b.json().sessionUserId).not.toBe(a.json().sessionUserId);
    const verified = await sdk.verify(a.json().token);
    expect(verified).toMatchObject({ ok: true, claims: { sub: a.json().sessionUserId, origin: LOCAL } });
    expect(verified.ok && verified.claims.channelId).toBeUndefined();
  });

  it('401 without a key, with an unknown or revoked key, or the key in X-API-Key', async () => {
    const body = { projectId: project.id };
    expectUnauthorized(await init(body, { origin: SHOP }));
    expectUnauthorized(await init(body, { 'x-public-key': `pk_${'B'.repeat(32)}`, origin: SHOP }));
    expectUnauthorized(await init(body, { 'x-public-key': revokedKey.key, origin: SHOP }));
    expectUnauthorized(await init(body, { 'x-api-key': key.key, origin: SHOP }));
  });

  it('403 ORIGIN_NOT_ALLOWED without an Origin or from an unlisted one', async () => {
    for (const headers of [{}, { origin: EVIL }, { origin: 'null' }] as Record<string, string>[]) {
      const res = await init({ projectId: project.id }, { 'x-public-key': key.key, ...headers });
      expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('404 PROJECT_NOT_FOUND for another project; 403 PERMISSION_REQUIRED when the key has no chat', async () => {
    expectError(
      await init({ projectId: other.id }, { 'x-public-key': key.key, origin: SHOP }),
      404,
      'PROJECT_NOT_FOUND',
    );
    const res = await init({ projectId: project.id }, { 'x-public-key': noChatKey.key, origin: SHOP });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'PERMISSION_REQUIRED', message: expect.any(String) },
      required: 'chat',
    });
  });

  it('400 VALIDATION_ERROR for a bad body or a channel not bound to the key', async () => {
    const headers = { 'x-public-key': key.key, origin: SHOP };
    for (const body of [
      {},
      { projectId: '' },
      { projectId: project.id, userId: '' },
      { projectId: project.id, userId: 'u'.repeat(257) },
      { projectId: project.id, userId: 'a\u0000b' },
      { projectId: project.id, surprise: true },
      // A channel bound to another key of the project, an unknown one.
      { projectId: project.id, channelId },
      { projectId: project.id, channelId: 'sdkc_missing' },
    ]) {
      expectError(await init(body, headers), 400, 'VALIDATION_ERROR');
    }
    // Each key's own origins: the other project's key works from its page only.
    const res = await init(
      { projectId: other.id },
      { 'x-public-key': otherKey.key, origin: 'https://other.example' },
    );
    expect(res.statusCode, res.body).toBe(201);
  });

  it('503 SDK_NOT_CONFIGURED without SDK_TOKEN_SECRET', async () => {
    const res = await init(
      { projectId: project.id },
      { 'x-public-key': key.key, origin: SHOP },
      unconfigured,
    );
    expectError(res, 503, 'SDK_NOT_CONFIGURED');
  });
});

describe('CORS preflight', () => {
  const preflight = (url: string, origin: string | undefined, method: string) =>
    app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        ...(origin === undefined ? {} : { origin }),
        'access-control-request-method': method,
        'access-control-request-headers': 'x-public-key, content-type',
      },
    });

  it('answers 204 with the CORS headers for an origin an active key lists', async () => {
    for (const [url, method] of [
      [`/api/v1/sdk/config/${project.id}`, 'GET'],
      ['/api/v1/sdk/init', 'POST'],
      ['/api/v1/chat/send', 'POST'],
      ['/api/v1/chat/agent', 'POST'],
      ['/api/v1/chat/stream', 'POST'],
      ['/api/v1/sessions/sess_1/end', 'POST'],
      ['/api/v1/ag-ui/run', 'POST'],
    ] as const) {
      const res = await preflight(url, SHOP, method);
      expect(res.statusCode, res.body).toBe(204);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': SHOP,
        'access-control-allow-methods': method,
        'access-control-allow-headers': 'X-API-Key, X-Public-Key, X-SDK-Token, Content-Type',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
    }
  });

  it('answers 403 with no CORS header for an unlisted, missing or only-revoked origin, or another project', async () => {
    const revokedOnly = 'https://revoked-only.example';
    const k = await auth.createPublicApiKey({ projectId: project.id, allowedOrigins: [revokedOnly] });
    await auth.revokePublicApiKey(k.id);
    for (const [url, origin] of [
      ['/api/v1/sdk/init', EVIL],
      ['/api/v1/sdk/init', undefined],
      ['/api/v1/sdk/init', revokedOnly],
      ['/api/v1/chat/stream', EVIL],
      ['/api/v1/ag-ui/run', EVIL],
      [`/api/v1/sdk/config/${other.id}`, SHOP],
      // Not looked up: PostgreSQL would refuse the id (a 500 before).
      ['/api/v1/sdk/config/proj%00', SHOP],
    ] as const) {
      const res = await preflight(url, origin, 'POST');
      expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-headers']).toBeUndefined();
    }
  });
});

describe('OpenAPI', () => {
  it('documents both routes with the public key schemes, not the preflights', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const config = doc.paths['/api/v1/sdk/config/{projectId}'];
    const initPath = doc.paths['/api/v1/sdk/init'];
    expect(Object.keys(config)).toEqual(['get']);
    expect(Object.keys(initPath)).toEqual(['post']);
    expect(config.get.security).toEqual([{ publicKey: [] }]);
    expect(initPath.post.security).toEqual([{ publicKeyInit: [] }]);
    expect(doc.components.securitySchemes.publicKey).toMatchObject({ in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.publicKeyInit).toMatchObject({
      in: 'header',
      name: 'X-Public-Key',
    });
    expect(Object.keys(initPath.post.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '429',
      '431',
      '503',
    ]);
  });
});

describe('rate limit', () => {
  it("counts public key requests against the key's tenant (429 beyond the limit)", async () => {
    const limited = await buildApp({
      logger: silentLogger(),
      readiness: { database: async () => true, pendingMigrations: async () => [] },
      rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 2, windowMs: 60_000 },
      sdkBootstrap: {
        publicKeys: auth,
        channels: sdkChannelLookup(createSdkChannelStore(db.pool)),
        sdkTokens: sdk,
      },
    });
    try {
      const call = () =>
        limited.inject({
          method: 'GET',
          url: `/api/v1/sdk/config/${project.id}`,
          headers: { 'x-api-key': key.key, origin: SHOP },
        });
      const first = await call();
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect((await call()).statusCode).toBe(200);
      const third = await call();
      expect(third.statusCode).toBe(429);
      expectCors(third, SHOP);
    } finally {
      await limited.close();
    }
  });
});
