import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { sessionStream, toAppend, upcast } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { createKeyring, loadConfig, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  callbackParams,
  computeRequestSignature,
  createTelephonyAccountStore,
  telephonyMigrations,
} from '@parley/telephony';
import {
  createInProcessVoiceConcurrencyLimiter,
  mediaStreamToken,
  type VoiceConcurrencyLimiter,
  voiceSettingsOf,
} from '@parley/voice';
import type { FastifyInstance } from 'fastify';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

const keyring = createKeyring(randomBytes(32));

const PUBLIC = 'https://parley.example.com';
const TELEPHONY = {
  VOICE_ENABLED: 'true',
  VOICE_TELEPHONY_ACCOUNT_SID: 'AC_client_sdk',
  VOICE_TELEPHONY_API_KEY_SID: 'SK_client_sdk',
  VOICE_TELEPHONY_API_KEY_SECRET: 'client-sdk-api-key-secret',
  VOICE_TELEPHONY_APP_SID: 'AP_outgoing',
  VOICE_STT_ENGINE: 'pocketsphinx',
  VOICE_TTS_ENGINE: 'espeak-ng',
};

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
const apps: FastifyInstance[] = [];
let n = 0;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations, telephonyMigrations]);
  store = createPostgresEventStore({ pool: db.pool, upcast });
  auth = createAuthStore(db.pool);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await store.close();
  await db.close();
});

/** A tenant, project, chat.write key and a registered provider account with its auth token. */
async function newAccount(scopes = ['chat.write']) {
  n += 1;
  const tenant = await auth.createTenant({ name: `telephony ${n}` });
  const project = await auth.createProject({ tenantId: tenant.id, slug: `telephony-${n}` });
  const { key } = await auth.createApiKey({ projectId: project.id, name: 'voice', scopes });
  const accountSid = `AC${process.pid}x${Date.now()}x${n}`;
  const authToken = `auth-token-${n}`;
  await createTelephonyAccountStore(db.pool, keyring).add({ accountSid, projectId: project.id, authToken });
  return { tenantId: tenant.id, projectId: project.id, key, accountSid, authToken };
}

async function makeApp(
  env: Record<string, string> = TELEPHONY,
  limiter: VoiceConcurrencyLimiter = createInProcessVoiceConcurrencyLimiter(),
): Promise<FastifyInstance> {
  const accounts = createTelephonyAccountStore(db.pool, keyring);
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    // Registered beside the recording-status route, as in production (each plugin parses forms).
    voice: {
      publicBaseUrl: PUBLIC,
      recordingStatus: async () => {
        throw new Error('not used here');
      },
    },
    telephonyVoice: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      settings: voiceSettingsOf(loadConfig(env)),
      limiter,
      publicBaseUrl: PUBLIC,
      account: (sid) => accounts.secrets(sid),
      store,
    },
  });
  apps.push(app);
  return app;
}

type Account = Awaited<ReturnType<typeof newAccount>>;

/** A provider webhook, signed for the public URL (or with the signature given). */
function webhook(
  app: FastifyInstance,
  path: string,
  account: Account,
  fields: Record<string, string>,
  signature?: string,
) {
  const form = new URLSearchParams({ AccountSid: account.accountSid, ...fields });
  return app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature':
        signature ?? computeRequestSignature(account.authToken, `${PUBLIC}${path}`, callbackParams(form)),
    },
    payload: form.toString(),
  });
}

const errorOf = (res: { statusCode: number; json(): unknown }) => ({
  status: res.statusCode,
  code: (res.json() as { error?: { code?: string } }).error?.code,
});

async function streamEvents(stream: string) {
  const out: Array<{ type: string; eventId: string; data: Record<string, unknown> }> = [];
  for await (const e of store.readStream(stream))
    out.push({ type: e.type, eventId: e.eventId, data: e.data });
  return out;
}

describe('GET /api/v1/voice/capabilities', () => {
  it('reports each configured service; fullVoice when all are', async () => {
    const { key } = await newAccount();
    const cases: Array<[Record<string, string>, Record<string, boolean>]> = [
      // voiceGateway: the gateway socket takes calls (both engines); providers are added below.
      [TELEPHONY, { telephony: true, stt: true, tts: true, fullVoice: true, voiceGateway: true }],
      [
        { ...TELEPHONY, VOICE_TTS_ENGINE: '' },
        { telephony: true, stt: true, tts: false, fullVoice: false, voiceGateway: false },
      ],
      [
        { ...TELEPHONY, VOICE_TELEPHONY_API_KEY_SECRET: '' },
        { telephony: false, stt: true, tts: true, fullVoice: false, voiceGateway: true },
      ],
      [
        { ...TELEPHONY, VOICE_ENABLED: 'false' },
        { telephony: false, stt: false, tts: false, fullVoice: false, voiceGateway: false },
      ],
    ];
    for (const [env, data] of cases) {
      const res = await (await makeApp(env)).inject({
        method: 'GET',
        url: '/api/v1/voice/capabilities',
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: { ...data, providers: ['twilio', 'byoc_sip'] } });
    }
  });

  it('answers 401 without a credential and 403 PERMISSION_REQUIRED without chat:write', async () => {
    const app = await makeApp();
    expect((await app.inject({ method: 'GET', url: '/api/v1/voice/capabilities' })).statusCode).toBe(401);
    const { key } = await newAccount(['traces.read']);
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/voice/capabilities',
      headers: { 'x-api-key': key },
    });
    expect(errorOf(res)).toEqual({ status: 403, code: 'PERMISSION_REQUIRED' });
  });
});

describe('POST /api/v1/voice/token', () => {
  const post = (app: FastifyInstance, key: string | undefined, payload: object) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/voice/token',
      headers: key === undefined ? {} : { 'x-api-key': key },
      payload,
    });

  it("issues the provider client SDK's access token for the session", async () => {
    const app = await makeApp();
    const { projectId, key } = await newAccount();
    const before = Math.floor(Date.now() / 1000);
    for (const body of [{ sessionId: 'ses_tok-1', projectId }, { sessionId: 'ses_tok-1' }]) {
      const res = await post(app, key, body);
      expect(res.statusCode).toBe(200);
      const { data } = res.json();
      expect(res.json()).toEqual({
        success: true,
        data: { token: expect.any(String), identity: 'parley-ses_tok-1', sessionId: 'ses_tok-1' },
      });
      expect(decodeProtectedHeader(data.token)).toEqual({ alg: 'HS256', typ: 'JWT', cty: 'twilio-fpa;v=1' });
      const { payload } = await jwtVerify(
        data.token,
        new TextEncoder().encode(TELEPHONY.VOICE_TELEPHONY_API_KEY_SECRET),
        { issuer: TELEPHONY.VOICE_TELEPHONY_API_KEY_SID, subject: TELEPHONY.VOICE_TELEPHONY_ACCOUNT_SID },
      );
      expect(payload.grants).toEqual({
        identity: 'parley-ses_tok-1',
        voice: {
          incoming: { allow: true },
          outgoing: { application_sid: 'AP_outgoing', params: { sessionId: 'ses_tok-1', projectId } },
        },
      });
      expect(payload.jti).toBe(`${TELEPHONY.VOICE_TELEPHONY_API_KEY_SID}-${payload.iat}`);
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
      expect(payload.iat).toBeGreaterThanOrEqual(before);
    }
  });

  it('answers 400, 401, 403, 404 and 503 as documented', async () => {
    const app = await makeApp();
    const { projectId, key } = await newAccount();
    const other = await newAccount();
    expect(errorOf(await post(app, key, {}))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(errorOf(await post(app, key, { sessionId: 'a b' }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect((await post(app, undefined, { sessionId: 's' })).statusCode).toBe(401);
    const reader = await newAccount(['traces.read']);
    expect(errorOf(await post(app, reader.key, { sessionId: 's' }))).toEqual({
      status: 403,
      code: 'PERMISSION_REQUIRED',
    });
    expect(errorOf(await post(app, key, { sessionId: 's', projectId: other.projectId }))).toEqual({
      status: 404,
      code: 'PROJECT_NOT_FOUND',
    });
    for (const env of [
      { ...TELEPHONY, VOICE_ENABLED: 'false' },
      { ...TELEPHONY, VOICE_TELEPHONY_ACCOUNT_SID: '' },
    ]) {
      expect(errorOf(await post(await makeApp(env), key, { sessionId: 's', projectId }))).toEqual({
        status: 503,
        code: 'VOICE_NOT_CONFIGURED',
      });
    }
  });
});

describe('POST /api/v1/voice/connect', () => {
  it("answers TwiML that streams the call to Parley's media WebSocket", async () => {
    const app = await makeApp();
    const account = await newAccount();
    const res = await webhook(app, '/api/v1/voice/connect', account, {
      CallSid: 'CA_connect_1',
      From: 'client:parley-ses_web-7',
      To: '+442071838750',
      CallStatus: 'ringing',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(res.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>' +
        '<Stream url="wss://parley.example.com/api/v1/voice/media/CA_connect_1">' +
        `<Parameter name="projectId" value="${account.projectId}"/>` +
        '<Parameter name="sessionId" value="ses_web-7"/>' +
        `<Parameter name="streamToken" value="${mediaStreamToken(account.authToken, { callSid: 'CA_connect_1', projectId: account.projectId, sessionId: 'ses_web-7' })}"/>` +
        '</Stream></Connect></Response>',
    );
    const plain = await webhook(app, '/api/v1/voice/connect', account, { CallSid: 'CA_connect_2' });
    expect(plain.body).toContain(
      `<Stream url="wss://parley.example.com/api/v1/voice/media/CA_connect_2"><Parameter name="projectId" value="${account.projectId}"/><Parameter name="streamToken" value="${mediaStreamToken(account.authToken, { callSid: 'CA_connect_2', projectId: account.projectId })}"/></Stream>`,
    );
  });

  it('answers 401 UNAUTHORIZED to a missing or bad signature or an unknown account, as the channel webhooks', async () => {
    const app = await makeApp();
    const account = await newAccount();
    const bad = await webhook(
      app,
      '/api/v1/voice/connect',
      account,
      { CallSid: 'CA1' },
      'AAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    );
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'Request signature did not verify' },
    });
    const unknown = await webhook(
      app,
      '/api/v1/voice/connect',
      { ...account, accountSid: 'AC_unknown' },
      { CallSid: 'CA1' },
    );
    expect(errorOf(unknown)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    for (const path of ['/api/v1/voice/connect', '/api/v1/voice/status']) {
      const unsigned = await app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          AccountSid: account.accountSid,
          CallSid: 'CA1',
          CallStatus: 'ringing',
        }).toString(),
      });
      expect(errorOf(unsigned), path).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    }
  });

  it('answers 400 without a CallSid and 503 VOICE_NOT_CONFIGURED while voice is disabled', async () => {
    const account = await newAccount();
    const missing = await webhook(await makeApp(), '/api/v1/voice/connect', account, {});
    expect(errorOf(missing)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    const disabled = await webhook(
      await makeApp({ ...TELEPHONY, VOICE_ENABLED: 'false' }),
      '/api/v1/voice/connect',
      account,
      {
        CallSid: 'CA1',
      },
    );
    expect(errorOf(disabled)).toEqual({ status: 503, code: 'VOICE_NOT_CONFIGURED' });
  });

  it('answers 429 VOICE_SESSION_LIMIT_REACHED beyond voice.maxConcurrentCalls until a call completes', async () => {
    const app = await makeApp({ ...TELEPHONY, VOICE_MAX_CONCURRENT_CALLS: '1' });
    const account = await newAccount();
    expect((await webhook(app, '/api/v1/voice/connect', account, { CallSid: 'CA_lim_1' })).statusCode).toBe(
      200,
    );
    // The same call again (a retried webhook) keeps its slot.
    expect((await webhook(app, '/api/v1/voice/connect', account, { CallSid: 'CA_lim_1' })).statusCode).toBe(
      200,
    );
    const over = await webhook(app, '/api/v1/voice/connect', account, { CallSid: 'CA_lim_2' });
    expect(errorOf(over)).toEqual({ status: 429, code: 'VOICE_SESSION_LIMIT_REACHED' });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    await webhook(app, '/api/v1/voice/status', account, { CallSid: 'CA_lim_1', CallStatus: 'in-progress' });
    expect((await webhook(app, '/api/v1/voice/connect', account, { CallSid: 'CA_lim_2' })).statusCode).toBe(
      429,
    );
    await webhook(app, '/api/v1/voice/status', account, { CallSid: 'CA_lim_1', CallStatus: 'completed' });
    expect((await webhook(app, '/api/v1/voice/connect', account, { CallSid: 'CA_lim_2' })).statusCode).toBe(
      200,
    );
  });
});

describe('POST /api/v1/voice/status', () => {
  it('appends each lifecycle status once to voicecall-<CallSid> when the call has no session', async () => {
    const app = await makeApp();
    const account = await newAccount();
    const callSid = `CA_life_${n}`;
    const ids: string[] = [];
    for (const [i, status] of ['initiated', 'ringing', 'in-progress', 'completed', 'completed'].entries()) {
      const res = await webhook(app, '/api/v1/voice/status', account, {
        CallSid: callSid,
        CallStatus: status,
        Direction: 'inbound',
        SequenceNumber: String(Math.min(i, 3)),
        Timestamp: `Sat, 21 Nov 2026 10:00:0${i} +0000`,
        ...(status === 'completed' ? { CallDuration: '42' } : {}),
        From: '+15550001111',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: { callId: callSid, status, eventId: expect.any(String), sessionId: null },
      });
      ids.push(res.json().data.eventId);
    }
    expect(ids[4]).toBe(ids[3]);
    const events = await streamEvents(`voicecall-${callSid}`);
    expect(events.map((e) => e.eventId)).toEqual(ids.slice(0, 4));
    expect(events.map((e) => e.data.status)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(events[3]).toEqual({
      type: 'VoiceCallStatusChanged',
      eventId: ids[3],
      data: {
        callId: callSid,
        projectId: account.projectId,
        tenantId: account.tenantId,
        accountId: account.accountSid,
        status: 'completed',
        direction: 'inbound',
        durationSeconds: 42,
        sequenceNumber: 3,
        occurredAt: '2026-11-21T10:00:03.000Z',
        reportedAt: expect.any(String),
      },
    });
    // No phone number is kept.
    expect(JSON.stringify(events)).not.toContain('5550001111');
  });

  it("records a call of a session of the account's project in the session stream", async () => {
    const app = await makeApp();
    const account = await newAccount();
    const sessionId = `ses_call_${n}`;
    await store.append(sessionStream(sessionId), [
      toAppend('SessionStarted', {
        ...eventExamples.SessionStarted,
        sessionId,
        projectId: account.projectId,
      }),
    ]);
    const res = await webhook(app, '/api/v1/voice/status', account, {
      CallSid: `CA_ses_${n}`,
      CallStatus: 'failed',
      ErrorCode: '31005',
      From: `client:parley-${sessionId}`,
    });
    expect(res.json().data).toMatchObject({ status: 'failed', sessionId });
    const types = (await streamEvents(sessionStream(sessionId))).map((e) => [
      e.type,
      e.data.status,
      e.data.errorCode,
    ]);
    expect(types).toEqual([
      ['SessionStarted', undefined, undefined],
      ['VoiceCallStatusChanged', 'failed', '31005'],
    ]);
    // A session of another project is not written to: the call keeps its own stream.
    const other = await newAccount();
    const foreign = await webhook(app, '/api/v1/voice/status', other, {
      CallSid: `CA_foreign_${n}`,
      CallStatus: 'ringing',
      From: `client:parley-${sessionId}`,
    });
    expect(foreign.json().data.sessionId).toBeNull();
    expect(await streamEvents(sessionStream(sessionId))).toHaveLength(2);
    expect(await streamEvents(`voicecall-CA_foreign_${n}`)).toHaveLength(1);
  });

  it('records the provider’s other statuses as given', async () => {
    const app = await makeApp();
    const account = await newAccount();
    for (const status of ['queued', 'busy', 'no-answer', 'canceled']) {
      const res = await webhook(app, '/api/v1/voice/status', account, {
        CallSid: `CA_other_${status}`,
        CallStatus: status,
      });
      expect(res.json().data.status).toBe(status);
    }
  });

  it('answers 400 to an unknown status or no CallSid, 401 to a bad signature', async () => {
    const app = await makeApp();
    const account = await newAccount();
    expect(
      errorOf(
        await webhook(app, '/api/v1/voice/status', account, { CallSid: 'CA1', CallStatus: 'answered' }),
      ),
    ).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(errorOf(await webhook(app, '/api/v1/voice/status', account, { CallStatus: 'ringing' }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    const bad = await webhook(
      app,
      '/api/v1/voice/status',
      account,
      { CallSid: 'CA1', CallStatus: 'ringing' },
      'x',
    );
    expect(errorOf(bad)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    // Signed for another URL (the internal address): refused.
    const form = new URLSearchParams({
      AccountSid: account.accountSid,
      CallSid: 'CA1',
      CallStatus: 'ringing',
    });
    const internal = await webhook(
      app,
      '/api/v1/voice/status',
      account,
      { CallSid: 'CA1', CallStatus: 'ringing' },
      computeRequestSignature(
        account.authToken,
        'http://localhost/api/v1/voice/status',
        callbackParams(form),
      ),
    );
    expect(internal.statusCode).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the four /api/v1/voice operations in a valid OpenAPI 3.1 document', async () => {
    const document = (await (await makeApp()).inject('/openapi.json')).json();
    const routes = [
      { method: 'GET', url: '/api/v1/voice/capabilities' },
      { method: 'POST', url: '/api/v1/voice/token' },
      { method: 'POST', url: '/api/v1/voice/connect' },
      { method: 'POST', url: '/api/v1/voice/status' },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
    // The provider posts forms: the document says so, not application/json.
    for (const path of ['/api/v1/voice/connect', '/api/v1/voice/status']) {
      expect(Object.keys(document.paths[path].post.requestBody.content)).toEqual([
        'application/x-www-form-urlencoded',
      ]);
    }
  });
});
