import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  type CheckSubscriptionUrl,
  channelInboundMigrations,
  checkCallbackUrl,
  createKeyring,
  createSubscriptionStore,
  credentialsKeyId,
  httpAsyncMigrations,
  type LookupFn,
  parseCallbackAllowlist,
  type SubscriptionStore,
} from '@parley/channels';
import { createInProcessRateLimiter } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

let db: TestDatabase;
let auth: AuthStore;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let store: SubscriptionStore;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let writeKey: string;
let readKey: string;
let otherKey: string;
let agentsKey: string;
const key = randomBytes(32);

// Names resolve here, never through real DNS.
const zone: Record<string, string[]> = {
  'receiver.example': ['93.184.215.14'],
  'moved.example': ['93.184.215.15'],
  'intranet.example': ['192.168.10.20'],
};
const lookup: LookupFn = async (host) => {
  const addresses = zone[host];
  if (addresses === undefined) throw new Error('ENOTFOUND');
  return addresses.map((address) => ({ address, family: 4 as const }));
};
// Loopback receivers of tests: only 127.0.0.1 (so 127.0.0.2 shows the refusal).
const allowlist = parseCallbackAllowlist('127.0.0.1/32');
const checkUrl: CheckSubscriptionUrl = (url) => checkCallbackUrl(url, { allowlist, lookup });

const BEARER = 'bearer-token-value-0123456789';

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelInboundMigrations, httpAsyncMigrations]);
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  writeKey = (await auth.createApiKey({ projectId, name: 'w', scopes: ['channels.write'] })).key;
  readKey = (await auth.createApiKey({ projectId, name: 'r', scopes: ['channels.read'] })).key;
  agentsKey = (await auth.createApiKey({ projectId, name: 'a', scopes: ['agents.write'] })).key;
  otherKey = (await auth.createApiKey({ projectId: otherProjectId, name: 'o', scopes: ['channels.write'] }))
    .key;
  store = createSubscriptionStore(db.pool, createKeyring(key), { checkUrl });
  const common = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
  };
  app = await buildApp({
    ...common,
    httpAsyncSubscriptions: { verifyApiKey: (k) => auth.verifyApiKey(k), subscriptions: store },
  });
  unconfigured = await buildApp({
    ...common,
    httpAsyncSubscriptions: { verifyApiKey: (k) => auth.verifyApiKey(k), subscriptions: null },
  });
});
afterAll(async () => {
  await app?.close();
  await unconfigured?.close();
  await db?.close();
});

const base = (p = projectId) => `/api/projects/${p}/webhook-subscriptions`;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: object) =>
  app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });
const orders = {
  displayName: 'Orders backend',
  callbackUrl: 'https://receiver.example/parley/callback',
  events: ['agent.status', 'agent.response'],
};
const secretsIn = async (id: string) =>
  (await db.pool.query('select * from http_async_subscriptions where id = $1', [id])).rows[0];

describe('webhook subscriptions API', () => {
  it('creates, lists, shows, updates, pauses, rotates and deletes; the secret only ever on create and rotate', async () => {
    const created = await call('POST', base(), writeKey, orders);
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { subscription, secret } = created.json();
    expect(created.json()).toEqual({
      success: true,
      subscription: {
        id: expect.stringMatching(/^sub_[0-9A-Za-z]{16}$/),
        tenantId,
        projectId,
        displayName: 'Orders backend',
        callbackUrl: 'https://receiver.example/parley/callback',
        events: ['agent.response', 'agent.status'],
        status: 'active',
        authMode: 'hmac',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const row = await secretsIn(subscription.id);
    expect(row.secret_key_id).toBe(credentialsKeyId(key));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect((await store.resolve(subscription.id))?.secret).toBe(secret);

    const list = await call('GET', base(), readKey);
    expect(list.statusCode).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.body).not.toContain(secret);
    expect(list.json()).toEqual({
      success: true,
      subscriptions: [subscription],
      pagination: { total: 1, limit: 50, offset: 0 },
    });
    const shown = await call('GET', `${base()}/${subscription.id}`, readKey);
    expect(shown.json()).toEqual({ success: true, subscription });
    expect(shown.body).not.toContain(secret);

    const patched = await call('PATCH', `${base()}/${subscription.id}`, writeKey, {
      displayName: 'Orders v2',
      callbackUrl: 'https://moved.example/v2',
      events: ['agent.media'],
      status: 'paused',
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.body).not.toContain(secret);
    expect(patched.json()).toEqual({
      success: true,
      subscription: {
        ...subscription,
        displayName: 'Orders v2',
        callbackUrl: 'https://moved.example/v2',
        events: ['agent.media'],
        status: 'paused',
        updatedAt: expect.any(String),
      },
    });
    const resumed = await call('PATCH', `${base()}/${subscription.id}`, writeKey, { status: 'active' });
    expect(resumed.json().subscription).toMatchObject({ status: 'active', displayName: 'Orders v2' });

    const rotated = await call('POST', `${base()}/${subscription.id}/rotate-secret`, writeKey);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.json()).toEqual({
      success: true,
      subscription: { ...resumed.json().subscription, updatedAt: expect.any(String) },
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(rotated.json().secret).not.toBe(secret);
    expect((await store.resolve(subscription.id))?.secret).toBe(rotated.json().secret);
    const again = await call('POST', `${base()}/${subscription.id}/rotate-secret`, writeKey, {});
    expect(again.json().secret).not.toBe(rotated.json().secret);

    expect((await call('DELETE', `${base()}/${subscription.id}`, writeKey)).statusCode).toBe(204);
    expect((await call('GET', base(), readKey)).json()).toMatchObject({
      subscriptions: [],
      pagination: { total: 0 },
    });
    for (const [method, url, payload] of [
      ['GET', `${base()}/${subscription.id}`, undefined],
      ['DELETE', `${base()}/${subscription.id}`, undefined],
      ['PATCH', `${base()}/${subscription.id}`, { status: 'active' }],
      ['POST', `${base()}/${subscription.id}/rotate-secret`, undefined],
    ] as const) {
      const res = await call(method, url, method === 'GET' ? readKey : writeKey, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'SUBSCRIPTION_NOT_FOUND', message: expect.any(String) },
      });
    }
    // Kept, not reactivated, secret erased.
    expect(await secretsIn(subscription.id)).toMatchObject({ status: 'deleted', secret_ciphertext: null });
  });

  it('stores a bearer token without ever returning it, and rotates it only to a token given', async () => {
    const created = await call('POST', base(), writeKey, {
      ...orders,
      authMode: 'bearer',
      bearerToken: BEARER,
    });
    expect(created.statusCode).toBe(201);
    expect(created.body).not.toContain(BEARER);
    expect(created.json().secret).toBeUndefined();
    const { id } = created.json().subscription;
    expect(created.json().subscription.authMode).toBe('bearer');
    expect((await store.resolve(id))?.secret).toBe(BEARER);
    expect(JSON.stringify(await secretsIn(id))).not.toContain(BEARER);

    const noToken = await call('POST', `${base()}/${id}/rotate-secret`, writeKey);
    expect(noToken.statusCode).toBe(400);
    expect(noToken.json().error.code).toBe('VALIDATION_ERROR');
    expect(noToken.json().error.message).toContain('bearerToken');
    const next = 'bearer-token-value-rotated-42';
    const rotated = await call('POST', `${base()}/${id}/rotate-secret`, writeKey, { bearerToken: next });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.body).not.toContain(next);
    expect(rotated.json().secret).toBeUndefined();
    expect((await store.resolve(id))?.secret).toBe(next);
    for (const res of [await call('GET', base(), readKey), await call('GET', `${base()}/${id}`, readKey)]) {
      expect(res.body).not.toContain(BEARER);
      expect(res.body).not.toContain(next);
    }
    const hmac = (await call('POST', base(), writeKey, orders)).json().subscription.id;
    const wrongMode = await call('POST', `${base()}/${hmac}/rotate-secret`, writeKey, { bearerToken: next });
    expect(wrongMode.statusCode).toBe(400);
    expect(wrongMode.json().error.code).toBe('VALIDATION_ERROR');
    expect(wrongMode.body).not.toContain(next);
  });

  it('answers 400 CALLBACK_URL_REFUSED with the reason for private, loopback and plain-http URLs', async () => {
    const before = (await call('GET', base(), readKey)).json().pagination.total;
    const cases: Array<[string, string]> = [
      ['https://127.0.0.2/hook', 'forbidden_address'],
      ['https://[::1]/hook', 'forbidden_address'],
      ['https://10.20.30.40/hook', 'forbidden_address'],
      ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
      ['https://intranet.example/hook', 'forbidden_address'],
      ['https://nowhere.example/hook', 'dns_failure'],
      ['http://receiver.example/hook', 'insecure_scheme'],
      ['https://user:hunter2@receiver.example/hook', 'credentials_in_url'],
    ];
    for (const [url, reason] of cases) {
      const res = await call('POST', base(), writeKey, { ...orders, callbackUrl: url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual({
        success: false,
        error: { code: 'CALLBACK_URL_REFUSED', message: expect.any(String), details: { reason } },
      });
      expect(res.body).not.toContain('hunter2');
    }
    expect((await call('GET', base(), readKey)).json().pagination.total).toBe(before);

    const { id, callbackUrl } = (await call('POST', base(), writeKey, orders)).json().subscription;
    const refused = await call('PATCH', `${base()}/${id}`, writeKey, {
      callbackUrl: 'https://192.168.0.1/x',
      displayName: 'not applied',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toEqual({
      code: 'CALLBACK_URL_REFUSED',
      message: expect.any(String),
      details: { reason: 'forbidden_address' },
    });
    expect((await call('GET', `${base()}/${id}`, readKey)).json().subscription).toMatchObject({
      callbackUrl,
      displayName: orders.displayName,
    });
  });

  it('accepts loopback receivers the allowlist names (how tests reach a local receiver)', async () => {
    for (const url of ['https://127.0.0.1:8443/callback', 'http://127.0.0.1:8080/callback']) {
      const res = await call('POST', base(), writeKey, { ...orders, callbackUrl: url });
      expect(res.statusCode, url).toBe(201);
      expect(res.json().subscription.callbackUrl).toBe(url);
    }
    const id = (await call('POST', base(), writeKey, orders)).json().subscription.id;
    const moved = await call('PATCH', `${base()}/${id}`, writeKey, {
      callbackUrl: 'https://127.0.0.1:9443/cb',
    });
    expect(moved.json().subscription.callbackUrl).toBe('https://127.0.0.1:9443/cb');
  });

  it('answers 400 VALIDATION_ERROR for invalid bodies and queries', async () => {
    const cases: object[] = [
      { ...orders, events: [] },
      { ...orders, events: ['agent.typing'] },
      { ...orders, displayName: '' },
      { ...orders, displayName: 'x'.repeat(201) },
      { ...orders, callbackUrl: 'receiver.example/hook' },
      { ...orders, callbackUrl: `https://receiver.example/${'a'.repeat(2048)}` },
      { ...orders, authMode: 'mtls' },
      { ...orders, authMode: 'bearer' },
      { ...orders, authMode: 'bearer', bearerToken: 'has space in it 123' },
      { ...orders, bearerToken: BEARER },
      { ...orders, status: 'deleted' },
      { ...orders, secret: 'mine' },
      { displayName: 'only a name' },
    ];
    for (const payload of cases) {
      const res = await call('POST', base(), writeKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code, JSON.stringify(payload)).toBe('VALIDATION_ERROR');
      expect(res.body).not.toContain(BEARER);
    }
    const id = (await call('POST', base(), writeKey, orders)).json().subscription.id;
    for (const payload of [{ status: 'deleted' }, { authMode: 'bearer' }, { events: [] }, { extra: 1 }]) {
      const res = await call('PATCH', `${base()}/${id}`, writeKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const extra = await call('POST', `${base()}/${id}/rotate-secret`, writeKey, { secret: 'x' });
    expect(extra.json().error.code).toBe('VALIDATION_ERROR');
    for (const q of ['limit=0', 'limit=201', 'offset=-1', 'page=2']) {
      const res = await call('GET', `${base()}?${q}`, readKey);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('pages the list oldest first', async () => {
    const all = (await call('GET', `${base()}?limit=200`, readKey)).json();
    expect(all.pagination.total).toBe(all.subscriptions.length);
    expect(all.subscriptions.length).toBeGreaterThan(2);
    const page = (await call('GET', `${base()}?limit=2&offset=1`, readKey)).json();
    expect(page.subscriptions).toEqual(all.subscriptions.slice(1, 3));
    expect(page.pagination).toEqual({ total: all.pagination.total, limit: 2, offset: 1 });
    const past = (await call('GET', `${base()}?offset=1000`, readKey)).json();
    expect(past).toEqual({
      success: true,
      subscriptions: [],
      pagination: { total: all.pagination.total, limit: 50, offset: 1000 },
    });
  });

  it('checks the credential, the project and the permission', async () => {
    const none = await app.inject({ method: 'GET', url: base() });
    expect(none.statusCode).toBe(401);
    // The credential is checked before the body: an anonymous caller learns nothing of the schema.
    const anonymousBad = await app.inject({ method: 'POST', url: base(), payload: { events: [] } });
    expect(anonymousBad.statusCode).toBe(401);
    const foreignBad = await call('POST', base(), otherKey, { events: [] });
    expect(foreignBad.statusCode).toBe(404);
    const anonymous = await app.inject({ method: 'POST', url: base(), payload: orders });
    expect(anonymous.statusCode).toBe(401);
    const wrong = await call('GET', base(), otherKey);
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().error.code).toBe('PROJECT_NOT_FOUND');
    const noScope = await call('GET', base(), agentsKey);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().error.code).toBe('PERMISSION_REQUIRED');
    const mine = (await call('POST', base(), writeKey, orders)).json().subscription;
    for (const [method, url, payload] of [
      ['POST', base(), orders],
      ['PATCH', `${base()}/${mine.id}`, { status: 'paused' }],
      ['DELETE', `${base()}/${mine.id}`, undefined],
      ['POST', `${base()}/${mine.id}/rotate-secret`, undefined],
    ] as const) {
      const readOnly = await call(method, url, readKey, payload);
      expect(readOnly.statusCode, `${method} ${url}`).toBe(403);
      expect(readOnly.json().error.code).toBe('PERMISSION_REQUIRED');
    }
    // Another project's key cannot reach this project's subscription through its own project either.
    expect((await call('GET', `${base(otherProjectId)}/${mine.id}`, otherKey)).statusCode).toBe(404);
    expect((await call('DELETE', `${base(otherProjectId)}/${mine.id}`, otherKey)).statusCode).toBe(404);
    const rotate = await call('POST', `${base(otherProjectId)}/${mine.id}/rotate-secret`, otherKey);
    expect(rotate.json().error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    expect((await call('GET', `${base()}/${mine.id}`, readKey)).json().subscription.status).toBe('active');
  });

  it('answers 503 CHANNELS_NOT_CONFIGURED without a credentials key', async () => {
    for (const [method, url] of [
      ['GET', base()],
      ['POST', base()],
      ['GET', `${base()}/sub_0000000000000000`],
      ['POST', `${base()}/sub_0000000000000000/rotate-secret`],
    ] as const) {
      const res = await unconfigured.inject({
        method,
        url,
        headers: { 'x-api-key': writeKey },
        ...(method === 'POST' && url === base() ? { payload: orders } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(503);
      expect(res.json().error.code).toBe('CHANNELS_NOT_CONFIGURED');
    }
    const anon = await unconfigured.inject({ method: 'GET', url: base() });
    expect(anon.statusCode).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the webhook subscription operations in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const url = '/api/projects/:projectId/webhook-subscriptions';
    const routes = [
      { method: 'GET', url },
      { method: 'POST', url },
      { method: 'GET', url: `${url}/:id` },
      { method: 'PATCH', url: `${url}/:id` },
      { method: 'DELETE', url: `${url}/:id` },
      { method: 'POST', url: `${url}/:id/rotate-secret` },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
    const create = document.paths['/api/projects/{projectId}/webhook-subscriptions'].post;
    expect(JSON.stringify(create.responses['400'])).toContain('reason');
    expect(JSON.stringify(create.responses['201'])).toContain('secret');
  });
});
