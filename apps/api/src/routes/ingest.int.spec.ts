import { randomUUID } from 'node:crypto';
import { storedCallerNumberKey } from '@parley/analytics';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { ingest } from '@parley/ingest';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let app: FastifyInstance;
let projectId: string;
let tenantId: string;
let ingestKey: string;
let readOnlyKey: string;

async function makeApp(defaultLimit: number): Promise<FastifyInstance> {
  return buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit },
    ingest: {
      verify: (key) => auth.verifyApiKey(key),
      ingest: (scope, items) =>
        ingest({ store, pool: db.pool, normaliseCallerNumber: storedCallerNumberKey }, scope, items),
    },
  });
}

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations]);
  store = createPostgresEventStore({ pool: db.pool });
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'support', name: 'Support' });
  tenantId = tenant.id;
  projectId = project.id;
  ingestKey = (await auth.createApiKey({ projectId, name: 'ingest', scopes: ['ingest.write'] })).key;
  readOnlyKey = (await auth.createApiKey({ projectId, name: 'read', scopes: ['analytics.read'] })).key;
  app = await makeApp(1_000);
});
afterAll(async () => {
  await app.close();
  await store.close();
  await db.close();
});

const started = (sessionId: string, id = `start-${sessionId}`) => ({
  id,
  type: 'session.started',
  data: {
    sessionId,
    agentName: 'support',
    channel: 'voice_pipeline',
    environment: 'production',
    callerNumber: '+44 (0)20 7183 8750',
    traceDimensions: { plan: 'pro' },
    startedAt: '2026-11-21T08:00:00.000Z',
  },
});

const post = (payload: unknown, headers: Record<string, string> = { 'x-api-key': ingestKey }) =>
  app.inject({ method: 'POST', url: '/api/v1/ingest', payload: payload as object, headers });

describe('POST /api/v1/ingest', () => {
  it('200: appends the facts and answers every field of every item', async () => {
    const sessionId = `sess_${randomUUID()}`;
    const res = await post({ items: [started(sessionId)] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      success: true,
      data: {
        accepted: 1,
        rejected: 0,
        results: [
          {
            index: 0,
            id: `start-${sessionId}`,
            status: 'accepted',
            eventId: expect.any(String),
            stream: `session-${sessionId}`,
          },
        ],
      },
    });
    // readStream, not readAll: a stream read is not held back by transactions elsewhere in the cluster.
    const stored = [];
    for await (const e of store.readStream(`session-${sessionId}`)) stored.push(e);
    const event = stored.find((e) => e.eventId === body.data.results[0].eventId);
    expect(event?.data).toMatchObject({ projectId, tenantId, sessionId, callerNumberKey: '+442071838750' });
  });

  it('accepts the key as a bearer token too', async () => {
    const res = await post(
      { items: [started(`sess_${randomUUID()}`)] },
      { authorization: `Bearer ${ingestKey}` },
    );
    expect(res.statusCode).toBe(200);
  });

  it('207: reports rejected items beside the accepted ones', async () => {
    const sessionId = `sess_${randomUUID()}`;
    const res = await post({
      items: [started(sessionId), { id: 'x', type: 'message.user', data: { sessionId } }],
    });
    expect(res.statusCode).toBe(207);
    expect(res.json().data).toMatchObject({
      accepted: 1,
      rejected: 1,
      results: [{ status: 'accepted' }, { status: 'rejected', id: 'x', error: { code: 'VALIDATION_ERROR' } }],
    });
  });

  it('207: an item with text PostgreSQL cannot store is rejected alone, the valid items appended', async () => {
    const sessionId = `sess_${randomUUID()}`;
    const message = (id: string, text: string) => ({
      id,
      type: 'message.user',
      data: { sessionId, messageId: id, text, receivedAt: '2026-11-21T08:00:01.000Z' },
    });
    const fine = started(`sess_${randomUUID()}`, 'bad-key');
    const withBadKey = { ...fine, data: { ...fine.data, traceDimensions: { 'pl\u0000an': 'pro' } } };
    const items = [
      started(sessionId),
      message('nul', 'hello\u0000world'),
      message('fine', 'hello world'),
      message('surrogate', 'half \ud83d an emoji'),
      withBadKey,
      message('id\u0000', 'text'),
    ];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const res = await post({ items });
      expect(res.statusCode).toBe(207);
      const issue = (path: string) => ({
        code: 'VALIDATION_ERROR',
        message: 'the item is not a valid fact',
        details: {
          issues: [
            { path, message: 'contains text that cannot be stored (U+0000 or an unpaired surrogate)' },
          ],
        },
      });
      expect(res.json().data).toMatchObject({
        accepted: 2,
        rejected: 4,
        results: [
          { index: 0, status: 'accepted' },
          { index: 1, id: 'nul', status: 'rejected', error: issue('data.text') },
          { index: 2, id: 'fine', status: 'accepted' },
          { index: 3, id: 'surrogate', status: 'rejected', error: issue('data.text') },
          { index: 4, id: 'bad-key', status: 'rejected', error: issue('data.traceDimensions.pl\u0000an') },
          { index: 5, id: null, status: 'rejected', error: issue('id') },
        ],
      });
    }
    const logged = [];
    for await (const event of store.readStream(`session-${sessionId}`)) logged.push(event.type);
    expect(logged).toEqual(['SessionStarted', 'MessageReceived']);
  });

  it('400 VALIDATION_ERROR when the body is not a batch of 1 to 1,000 items', async () => {
    for (const payload of [{}, { items: [] }, { items: 'nope' }, { items: Array(1_001).fill({}) }]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });

  it('401 with the authentication envelope for a missing, unknown or revoked key', async () => {
    const revoked = await auth.createApiKey({ projectId, name: 'gone', scopes: ['ingest.write'] });
    await auth.revokeApiKey(revoked.record.id);
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-api-key': `plat_${'x'.repeat(55)}` },
      { 'x-api-key': revoked.key },
    ];
    for (const headers of attempts) {
      const res = await post({ items: [started('s')] }, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: expect.any(String), requestId: expect.any(String) });
    }
  });

  it('403 PLATFORM_API_KEY_REQUIRED for a public key, 403 PERMISSION_REQUIRED without ingest.write', async () => {
    const publicKey = await post({ items: [started('s')] }, { 'x-api-key': 'pk_live_abcdef' });
    expect(publicKey.statusCode).toBe(403);
    expect(publicKey.json()).toMatchObject({ success: false, error: { code: 'PLATFORM_API_KEY_REQUIRED' } });
    const noScope = await post({ items: [started('s')] }, { 'x-api-key': readOnlyKey });
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json()).toMatchObject({
      success: false,
      error: { code: 'PERMISSION_REQUIRED' },
      required: 'ingest:write',
    });
  });

  it('413 over the ingest body limit', async () => {
    const big = {
      items: [{ id: 'big', type: 'message.user', data: { text: 'x'.repeat(11 * 1024 * 1024) } }],
    };
    const res = await post(big);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('429 with the rate-limit headers once the tenant is over its rate', async () => {
    const limited = await makeApp(2);
    try {
      const send = () =>
        limited.inject({
          method: 'POST',
          url: '/api/v1/ingest',
          payload: { items: [started(`s_${randomUUID()}`)] },
          headers: { 'x-api-key': ingestKey },
        });
      const first = await send();
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
      await send();
      const third = await send();
      expect(third.statusCode).toBe(429);
      expect(third.headers['retry-after']).toBeDefined();
      expect(third.json()).toEqual({ error: expect.any(String), retryAfterMs: expect.any(Number) });
    } finally {
      await limited.close();
    }
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.inject('/openapi.json')).json();
    expect(Object.keys(doc.paths['/api/v1/ingest'].post.responses).sort()).toEqual(
      ['200', '207', '400', '401', '403', '413', '429', '431', '503'].sort(),
    );
  });
});
