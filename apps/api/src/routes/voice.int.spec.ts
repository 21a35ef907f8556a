import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { ingest } from '@parley/ingest';
import { createKeyring, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  callbackParams,
  computeRequestSignature,
  createTelephonyAccountStore,
  handleRecordingStatusCallback,
  telephonyMigrations,
} from '@parley/telephony';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

const keyring = createKeyring(randomBytes(32));

const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'voice-route-token';
const PUBLIC = 'https://parley.example.com';

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let projectId: string;

async function makeApp(publicBaseUrl: string | undefined): Promise<FastifyInstance> {
  const accounts = createTelephonyAccountStore(db.pool, keyring);
  return buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
    voice: {
      ...(publicBaseUrl === undefined ? {} : { publicBaseUrl }),
      recordingStatus: (request) =>
        handleRecordingStatusCallback(
          {
            account: (sid) => accounts.secrets(sid),
            ingest: (scope, items) =>
              ingest(
                {
                  store,
                  pool: db.pool,
                  normaliseCallerNumber: (raw) => raw,
                  recordingRetentionDays: async (id) =>
                    (await auth.getProject(id))?.settings.recording?.retentionDays,
                },
                scope,
                items,
              ),
          },
          request,
        ),
    },
  });
}

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations, telephonyMigrations]);
  store = createPostgresEventStore({ pool: db.pool });
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'voice' })).id;
  await createTelephonyAccountStore(db.pool, keyring).add({
    accountSid: ACCOUNT,
    projectId,
    authToken: TOKEN,
  });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const fields = (recordingSid: string, status = 'completed') => ({
  AccountSid: ACCOUNT,
  CallSid: 'CA0123456789abcdef0123456789abcdef',
  RecordingSid: recordingSid,
  RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT}/Recordings/${recordingSid}`,
  RecordingStatus: status,
  RecordingDuration: '7',
  RecordingChannels: '2',
  RecordingStartTime: 'Sat, 21 Nov 2026 09:59:00 +0000',
  RecordingSource: 'StartCallRecordingAPI',
  RecordingTrack: 'both',
  ErrorCode: '0',
});

function post(
  app: FastifyInstance,
  body: Record<string, string>,
  options: { signedUrl: string; path?: string; signature?: string },
) {
  const form = new URLSearchParams(body);
  const path = options.path ?? '/api/v1/voice/recording-status?sessionId=ses_1';
  return app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature':
        options.signature ?? computeRequestSignature(TOKEN, options.signedUrl, callbackParams(form)),
      'i-twilio-idempotency-token': '00000000-0000-0000-0000-000000000000',
    },
    payload: form.toString(),
  });
}

async function streamTypes(recordingId: string) {
  const out: string[] = [];
  for await (const e of store.readStream(`recording-${recordingId}`)) out.push(e.type);
  return out;
}

describe('POST /api/v1/voice/recording-status', () => {
  it('verifies the signature over PUBLIC_BASE_URL + path + query and records the recording once', async () => {
    const app = await makeApp(`${PUBLIC}/`);
    const signedUrl = `${PUBLIC}/api/v1/voice/recording-status?sessionId=ses_1`;
    const first = await post(app, fields('RE_route_1'), { signedUrl });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ success: true, data: { recordingId: 'RE_route_1', status: 'completed' } });
    expect(body.data.eventIds).toHaveLength(2);
    const again = await post(app, fields('RE_route_1'), { signedUrl });
    expect(again.json().data.eventIds).toEqual(body.data.eventIds);
    expect(await streamTypes('RE_route_1')).toEqual(['RecordingStarted', 'RecordingCompleted']);
    await app.close();
  });

  it('answers 401 UNAUTHORIZED to a missing or bad signature, one for another URL, or no form body', async () => {
    const app = await makeApp(PUBLIC);
    const signedUrl = `${PUBLIC}/api/v1/voice/recording-status?sessionId=ses_1`;
    const bad = await post(app, fields('RE_route_2'), {
      signedUrl,
      signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    });
    expect(bad.statusCode).toBe(401);
    // The channel webhooks' envelope and message for the same failure (spec 000 §7).
    expect(bad.json()).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'Request signature did not verify' },
    });
    // Signed for the internal address, not the public one.
    const internal = await post(app, fields('RE_route_2'), {
      signedUrl: 'http://localhost:80/api/v1/voice/recording-status?sessionId=ses_1',
    });
    expect(internal.statusCode).toBe(401);
    const json = await app.inject({
      method: 'POST',
      url: '/api/v1/voice/recording-status?sessionId=ses_1',
      payload: fields('RE_route_2'),
    });
    expect(json.statusCode).toBe(401);
    const unsigned = await app.inject({
      method: 'POST',
      url: '/api/v1/voice/recording-status?sessionId=ses_1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields('RE_route_2')).toString(),
    });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json().error.code).toBe('UNAUTHORIZED');
    expect(await streamTypes('RE_route_2')).toEqual([]);
    await app.close();
  });

  it('uses the request protocol and Host without PUBLIC_BASE_URL, and answers 400 to a signed invalid callback', async () => {
    const app = await makeApp(undefined);
    const ok = await post(app, fields('RE_route_3', 'in-progress'), {
      signedUrl: 'http://localhost:80/api/v1/voice/recording-status?sessionId=ses_1',
    });
    expect(ok.statusCode).toBe(200);
    expect(await streamTypes('RE_route_3')).toEqual(['RecordingStarted']);
    const invalid = await post(app, fields('RE_route_3', 'paused'), {
      signedUrl: 'http://localhost:80/api/v1/voice/recording-status?sessionId=ses_1',
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    await app.close();
  });
});
