import { randomBytes } from 'node:crypto';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  channelInboundMigrations,
  channelsMigrations,
  createChannelJobQueue,
  createConnectionStore,
  createInboundPipeline,
  createKeyring,
} from '@parley/channels';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { FAKE_CHANNEL, fakeAdapter, signBody } from '../../testing/channels/fakeChannel.js';

/** A webhook before any worker ran: pg-boss has neither its queues nor its schema yet. */
let db: TestDatabase;
let app: FastifyInstance;
const SECRET = 'queue-missing-secret';
const BOT = 'bot-queue-missing';

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsMigrations, channelInboundMigrations]);
  const auth = createAuthStore(db.pool);
  const connections = createConnectionStore(db.pool, createKeyring(randomBytes(32)));
  const tenant = await auth.createTenant({ name: 'Acme' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'queue-missing' });
  await connections.create(project.id, {
    channelType: FAKE_CHANNEL,
    externalIdentifier: BOT,
    credentials: { accessToken: 't', appSecret: SECRET, verifyToken: 'v' },
    settings: {},
  });
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    channelWebhooks: {
      pipeline: createInboundPipeline({
        pool: db.pool,
        // Never started: no pg-boss schema in this database.
        boss: createChannelJobQueue(db.pool),
        adapters: new Map([[FAKE_CHANNEL, fakeAdapter]]),
        connections,
        logger: silentLogger(),
      }),
    },
  });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

describe('a signed message before the worker ever ran', () => {
  it('is answered 503 SERVICE_UNAVAILABLE (the platform retries), nothing recorded; never a 500', async () => {
    const raw = JSON.stringify({ messages: [{ id: 'm-1', chat: 'chat-1', text: 'hello' }] });
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/channels/${FAKE_CHANNEL}/webhook/${BOT}`,
      headers: { 'content-type': 'application/json', 'x-fake-signature': signBody(SECRET, raw) },
      payload: raw,
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' },
    });
    const { rows } = await db.pool.query('select count(*)::int as n from channel_inbound_messages');
    expect(rows[0].n).toBe(0);
  });
});
