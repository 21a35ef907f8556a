import { randomBytes } from 'node:crypto';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  createChannelJobQueue,
  createKeyring,
  ensureToolResumeQueue,
  signSuspensionCallback,
  TOOL_RESUME_QUEUE,
} from '@parley/channels';
import { eventStoreMigrations } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createSuspensionStore, runtimeMigrations, type SuspensionStore } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

let db: TestDatabase;
let boss: PgBoss;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let store: SuspensionStore;
let projectId: string;
let tenantId: string;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations, runtimeMigrations]);
  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'suspensions' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'suspensions' });
  tenantId = tenant.id;
  projectId = project.id;
  store = createSuspensionStore(db.pool, createKeyring(randomBytes(32)));
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureToolResumeQueue(boss);
  const base = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
  };
  app = await buildApp({ ...base, suspensions: { suspensions: store, boss } });
  unconfigured = await buildApp({ ...base, suspensions: { suspensions: null, boss } });
});
afterAll(async () => {
  await app?.close();
  await unconfigured?.close();
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await db?.close();
});

let n = 0;
async function suspension(expiresInMs = 60_000): Promise<{ id: string; secret: string }> {
  n += 1;
  const id = `susp_test_${n}_${randomBytes(6).toString('hex')}`;
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  await store.create({
    suspensionId: id,
    sessionId: `sess_${n}`,
    projectId,
    tenantId,
    secret,
    origin: null,
    expiresAt: new Date(Date.now() + expiresInMs),
  });
  return { id, secret };
}

const post = (target: FastifyInstance, id: string, body: string, signature?: string) =>
  target.inject({
    method: 'POST',
    url: `/api/v1/suspensions/${id}/callback`,
    headers: {
      'content-type': 'application/json',
      ...(signature === undefined ? {} : { 'x-callback-signature': signature }),
    },
    payload: body,
  });

async function queued(): Promise<Array<{ suspensionId: string; outcome: string; result?: unknown }>> {
  const jobs = await boss.fetch<{ suspensionId: string; outcome: string; result?: unknown }>(
    TOOL_RESUME_QUEUE,
    {
      batchSize: 10,
    },
  );
  return jobs.map((j) => j.data);
}

describe('POST /api/v1/suspensions/{suspensionId}/callback', () => {
  it('202: a signed result resumes the suspension once (a tool-resume job with the result)', async () => {
    const { id, secret } = await suspension();
    const body = JSON.stringify({ approved: true, amount: 42 });
    const res = await post(app, id, body, signSuspensionCallback(body, secret));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ success: true, data: { suspensionId: id, status: 'resumed' } });
    expect(await queued()).toEqual([
      { suspensionId: id, outcome: 'completed', result: { approved: true, amount: 42 } },
    ]);
    expect((await store.get(id))?.status).toBe('resumed');

    // 409: a replay (even correctly signed) changes nothing.
    const replay = await post(app, id, body, `sha256=${signSuspensionCallback(body, secret).toUpperCase()}`);
    expect(replay.statusCode).toBe(409);
    expect(replay.json()).toEqual({
      success: false,
      error: { code: 'SUSPENSION_ALREADY_RESUMED', message: 'the suspension has already resumed' },
    });
    expect(await queued()).toEqual([]);
  });

  it('401: a wrong or missing signature, in the authentication envelope; nothing changes', async () => {
    const { id, secret } = await suspension();
    const body = '{"approved":true}';
    for (const signature of [
      undefined,
      signSuspensionCallback(body, `${secret}x`),
      signSuspensionCallback('{}', secret),
      'nonsense',
    ]) {
      const res = await post(app, id, body, signature);
      expect(res.statusCode).toBe(401);
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'requestId']);
    }
    expect((await store.get(id))?.status).toBe('pending');
    expect(await queued()).toEqual([]);
  });

  it('404: an unknown suspension (not told apart from a guessed one)', async () => {
    const res = await post(app, 'susp_nope', '{}', signSuspensionCallback('{}', 'whatever'));
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('SUSPENSION_NOT_FOUND');
  });

  it('410: an expired suspension, even signed; nothing changes', async () => {
    const { id, secret } = await suspension(-1_000);
    const res = await post(app, id, '{"late":true}', signSuspensionCallback('{"late":true}', secret));
    expect(res.statusCode).toBe(410);
    expect(res.json().error.code).toBe('SUSPENSION_EXPIRED');
    expect((await store.get(id))?.status).toBe('pending');
    expect(await queued()).toEqual([]);
  });

  it('400: a body that is not a JSON object; 413 over the size limit', async () => {
    const { id, secret } = await suspension();
    const res = await post(app, id, '[1,2]', signSuspensionCallback('[1,2]', secret));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    const big = JSON.stringify({ blob: 'x'.repeat(300 * 1024) });
    const large = await post(app, id, big, signSuspensionCallback(big, secret));
    expect(large.statusCode).toBe(413);
    expect((await store.get(id))?.status).toBe('pending');
  });

  it('503: suspensions not configured (no credentials key)', async () => {
    const res = await post(unconfigured, 'susp_x', '{}', 'x');
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('SUSPENSIONS_NOT_CONFIGURED');
  });
});
