import { channelsSdkMigrations, createSdkChannelStore } from '@parley/channels';
import { sessionStream } from '@parley/events';
import { createSdkTokens } from '@parley/http';
import { migrate, silentLogger } from '@parley/platform';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { type ChatWorld, createChatWorld, inProcessLimits } from '../../testing/chatFixture.js';
import { sessionScopeFromLog } from '../chat/sessionScopeFromLog.js';
import { sdkChannelLookup } from './widgetConfig.js';

const SHOP = 'https://shop.example.com';
const EVIL = 'https://evil.example.com';
const sdk = createSdkTokens({ secret: 'sdk-token-secret-for-the-widget-flow-test', ttlSeconds: 300 });

let world: ChatWorld;
let app: FastifyInstance;
let projectId: string;
let publicKey: string;

beforeAll(async () => {
  world = await createChatWorld();
  await migrate(world.db.pool, [channelsSdkMigrations]);
  ({ projectId } = await world.newProject());
  ({ key: publicKey } = await world.auth.createPublicApiKey({ projectId, allowedOrigins: [SHOP] }));
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    chat: {
      verifyApiKey: (key) => world.auth.verifyApiKey(key),
      verifySdkToken: sdk.verify,
      runtime: world.runtime,
      sessionScope: sessionScopeFromLog(world.store),
      limits: inProcessLimits(),
    },
    sdkBootstrap: {
      publicKeys: world.auth,
      channels: sdkChannelLookup(createSdkChannelStore(world.db.pool)),
      sdkTokens: sdk,
    },
  });
});
afterAll(async () => {
  await app.close();
  await world.close();
});

const preflight = (url: string, origin: string) =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-sdk-token',
    },
  });

describe('a widget on an allowed origin: config, init, chat', () => {
  it('bootstraps and chats with CORS for its origin; another origin is refused at each step', async () => {
    const config = await app.inject({
      method: 'GET',
      url: `/api/v1/sdk/config/${projectId}`,
      headers: { 'x-api-key': publicKey, origin: SHOP },
    });
    expect(config.statusCode, config.body).toBe(200);

    expect((await preflight('/api/v1/sdk/init', SHOP)).statusCode).toBe(204);
    const init = await app.inject({
      method: 'POST',
      url: '/api/v1/sdk/init',
      headers: { 'x-public-key': publicKey, origin: SHOP },
      payload: { projectId, userId: 'shopper-1' },
    });
    expect(init.statusCode, init.body).toBe(201);
    const { token, sessionUserId } = init.json() as { token: string; sessionUserId: string };

    expect((await preflight('/api/v1/chat/send', SHOP)).headers['access-control-allow-origin']).toBe(SHOP);
    const sent = await app.inject({
      method: 'POST',
      url: '/api/v1/chat/send',
      headers: { 'x-sdk-token': token, origin: SHOP },
      payload: { projectId, message: 'where is my order?' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.headers['access-control-allow-origin']).toBe(SHOP);
    expect(sent.headers.vary).toMatch(/Origin/);
    const { sessionId } = (sent.json() as { data: { sessionId: string } }).data;
    for await (const e of world.store.readStream(sessionStream(sessionId), { maxCount: 1 })) {
      expect(e.data).toMatchObject({ projectId, channelUserId: sessionUserId });
    }

    const streamed = await app.inject({
      method: 'POST',
      url: '/api/v1/chat/stream',
      headers: { 'x-sdk-token': token, origin: SHOP, accept: 'text/event-stream' },
      payload: { sessionId, message: 'and now?' },
    });
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(streamed.headers['access-control-allow-origin']).toBe(SHOP);

    // The same token from another page; and that page's preflights.
    const stolen = await app.inject({
      method: 'POST',
      url: '/api/v1/chat/send',
      headers: { 'x-sdk-token': token, origin: EVIL },
      payload: { sessionId, message: 'hi' },
    });
    expect(stolen.statusCode).toBe(403);
    expect(stolen.json()).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
    expect(stolen.headers['access-control-allow-origin']).toBeUndefined();
    for (const url of ['/api/v1/sdk/init', '/api/v1/chat/send']) {
      const res = await preflight(url, EVIL);
      expect(res.statusCode).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
