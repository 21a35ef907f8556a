import { randomBytes } from 'node:crypto';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  type ConnectionStore,
  channelsMigrations,
  createChannelAdapters,
  createConnectionStore,
  createKeyring,
  verifyTelegramSecret,
} from '@parley/channels';
import { LOOPBACK_API_BASE_URLS, startStandIn } from '@parley/channels/testing';
import { createInProcessRateLimiter } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

/**
 * The bot platform registers no webhook from its console: the service calls setWebhook itself
 * when a connection is created or changed (spec 001 §4.2), with a secret token it generates and
 * stores first. The Telegram Bot API is a local stand-in.
 */

let db: TestDatabase;
let app: FastifyInstance;
let store: ConnectionStore;
let projectId: string;
let key: string;
let platformFails = false;
const platform = await startStandIn((request) =>
  platformFails
    ? { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } }
    : request.path.endsWith('/setWebhook')
      ? { status: 200, body: { ok: true, result: true, description: 'Webhook was set' } }
      : { status: 404, body: { ok: false } },
);
const BOT_TOKEN = '7000042:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsMigrations]);
  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'bots' })).id;
  key = (await auth.createApiKey({ projectId, name: 'w', scopes: ['channels.write'] })).key;
  store = createConnectionStore(db.pool, createKeyring(randomBytes(32)), {
    apiBaseUrl: LOOPBACK_API_BASE_URLS,
  });
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
    channelConnections: {
      verifyApiKey: (k) => auth.verifyApiKey(k),
      connections: store,
      webhookRegistration: { adapters: createChannelAdapters(), publicBaseUrl: 'https://parley.example/' },
    },
  });
});
afterAll(async () => {
  await app?.close();
  await platform.close();
  await db?.close();
});
beforeEach(() => {
  platform.requests.length = 0;
  platformFails = false;
});

const create = (body: object) =>
  app.inject({
    method: 'POST',
    url: `/api/projects/${projectId}/channel-connections`,
    headers: { 'x-api-key': key },
    payload: body,
  });
const patch = (id: string, body: object) =>
  app.inject({
    method: 'PATCH',
    url: `/api/projects/${projectId}/channel-connections/${id}`,
    headers: { 'x-api-key': key },
    payload: body,
  });

describe('webhook registration (telegram)', () => {
  it('generates and stores a secret, then calls setWebhook with the public URL and that secret', async () => {
    const response = await create({
      channelType: 'telegram',
      externalIdentifier: '7000042',
      credentials: { botToken: BOT_TOKEN },
      settings: { apiBaseUrl: platform.baseUrl },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.webhookRegistration).toEqual({
      status: 'registered',
      url: 'https://parley.example/api/v1/channels/telegram/webhook/7000042',
    });
    expect(body.connection.credentialNames).toEqual(['botToken', 'webhookSecret']);
    expect(response.body).not.toContain(BOT_TOKEN);

    expect(platform.requests).toHaveLength(1);
    const call = platform.requests[0]!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe(`/bot${BOT_TOKEN}/setWebhook`);
    const sent = call.body as { url: string; secret_token: string; allowed_updates: string[] };
    expect(sent.url).toBe('https://parley.example/api/v1/channels/telegram/webhook/7000042');
    expect(sent.allowed_updates).toEqual(['message', 'callback_query']);
    expect(sent.secret_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The secret Telegram will send back is the one stored on the connection.
    const resolved = await store.resolveById(body.connection.id);
    expect(verifyTelegramSecret(sent.secret_token, resolved?.credentials.webhookSecret ?? '')).toBe(true);
  });

  it('keeps a secret the connection already has, and registers again when the token changes', async () => {
    const created = await create({
      channelType: 'telegram',
      externalIdentifier: '7000043',
      credentials: { botToken: '7000043:AAA-first', webhookSecret: 'given-secret_1' },
      settings: { apiBaseUrl: platform.baseUrl },
    });
    expect((platform.requests[0]?.body as { secret_token?: string } | undefined)?.secret_token).toBe(
      'given-secret_1',
    );
    const id = created.json().connection.id as string;

    const renamed = await patch(id, { name: 'Support bot' });
    expect(renamed.json().webhookRegistration).toBeUndefined();
    expect(platform.requests).toHaveLength(1);

    const rotated = await patch(id, { credentials: { botToken: '7000043:BBB-second' } });
    expect(rotated.json().webhookRegistration.status).toBe('registered');
    expect(platform.requests.at(-1)?.path).toBe('/bot7000043:BBB-second/setWebhook');
  });

  it('reports a refused registration without losing the connection or leaking the token', async () => {
    platformFails = true;
    const response = await create({
      channelType: 'telegram',
      externalIdentifier: '7000044',
      credentials: { botToken: '7000044:CCC-bad' },
      settings: { apiBaseUrl: platform.baseUrl },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().webhookRegistration).toEqual({
      status: 'failed',
      url: 'https://parley.example/api/v1/channels/telegram/webhook/7000044',
      error: 'telegram 401: Unauthorized',
    });
    expect(response.body).not.toContain('CCC-bad');
    expect(await store.resolve('telegram', '7000044')).not.toBeNull();

    platformFails = false;
    const fixed = await patch(response.json().connection.id, { active: true });
    expect(fixed.json().webhookRegistration.status).toBe('registered');
  });

  it('does not register an inactive connection, nor channel types that need no registration', async () => {
    const inactive = await create({
      channelType: 'telegram',
      externalIdentifier: '7000045',
      credentials: { botToken: '7000045:DDD' },
      active: false,
      settings: { apiBaseUrl: platform.baseUrl },
    });
    expect(inactive.json().webhookRegistration).toBeUndefined();
    const slack = await create({
      channelType: 'slack',
      externalIdentifier: 'T0001:A0001',
      credentials: { botToken: 'xoxb-1', signingSecret: 's' },
    });
    expect(slack.statusCode).toBe(201);
    expect(slack.json().webhookRegistration).toBeUndefined();
    expect(platform.requests).toHaveLength(0);
  });
});
