import { randomBytes } from 'node:crypto';
import { createKeyring, loadConfig } from '@parley/platform';
import { createProjectionRunner, type ProjectionRunner } from '@parley/projection-runner';
import { listSessions, sessionSummariesProjection } from '@parley/projection-session-summaries';
import { createTraceReads, tracesProjection } from '@parley/projection-traces';
import { callbackParams, computeRequestSignature, createTelephonyAccountStore } from '@parley/telephony';
import { createInProcessVoiceConcurrencyLimiter, voiceSettingsOf } from '@parley/voice';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceWorld, type VoiceWorld } from '../../testing/voice/voiceWorld.js';
import { createPageCache } from '../pageCache.js';

const PUBLIC = 'https://parley.example.com';
let world: VoiceWorld;
let runner: ProjectionRunner;
let app: FastifyInstance;
let account: { accountSid: string; authToken: string; projectId: string; tenantId: string };
let key: string;

beforeAll(async () => {
  world = await createVoiceWorld();
  runner = createProjectionRunner({
    pool: world.db.pool,
    store: world.store,
    projections: [tracesProjection, sessionSummariesProjection],
    pollIntervalMs: 20,
  });
  await runner.start();
  const project = await world.newProject();
  account = { ...project, accountSid: `ACtraces${process.pid}`, authToken: 'traces-auth-token' };
  const accounts = createTelephonyAccountStore(world.db.pool, createKeyring(randomBytes(32)));
  await accounts.add({
    accountSid: account.accountSid,
    projectId: project.projectId,
    authToken: account.authToken,
  });
  key = (
    await world.auth.createApiKey({
      projectId: project.projectId,
      name: 't',
      scopes: ['traces.read', 'analytics.read'],
    })
  ).key;
  ({ app } = await world.listen({
    telephonyVoice: {
      verifyApiKey: (k) => world.auth.verifyApiKey(k),
      settings: voiceSettingsOf(loadConfig({ VOICE_ENABLED: 'true' })),
      limiter: createInProcessVoiceConcurrencyLimiter(),
      publicBaseUrl: PUBLIC,
      account: (sid) => accounts.secrets(sid),
      store: world.store,
    },
    analytics: {
      verify: (k) => world.auth.verifyApiKey(k),
      listSessions: (filter) => listSessions(world.db.pool, filter),
      listLedger: async () => {
        throw new Error('not in this test');
      },
      ledgerStats: async () => {
        throw new Error('not in this test');
      },
      callerNumberLookupEnabled: async () => true,
      freshness: async () => ({ position: null, recordedAt: null }),
      pageCache: createPageCache(),
    },
    traces: {
      verifyApiKey: (k) => world.auth.verifyApiKey(k),
      reads: createTraceReads(world.db.pool, { exportBatchRows: 1_000, maxAnalysedEvents: 200 }),
    },
  }));
});
afterAll(async () => {
  await runner?.stop();
  await world?.close();
});

/** A signed status callback of the provider for a call of the session. */
async function status(sessionId: string, fields: Record<string, string>) {
  const path = `/api/v1/voice/status?sessionId=${sessionId}`;
  const form = new URLSearchParams({ AccountSid: account.accountSid, ...fields });
  const res = await app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': computeRequestSignature(
        account.authToken,
        `${PUBLIC}${path}`,
        callbackParams(form),
      ),
    },
    payload: form.toString(),
  });
  expect(res.statusCode).toBe(200);
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies, read field by field
type Json = Record<string, any>;

/** GET a trace API of the session until `done` holds for its body (the projection catches up). */
async function until(path: string, done: (body: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } });
    const body = res.json() as Json;
    if (res.statusCode === 200 && done(body)) return body;
    if (Date.now() > deadline) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("a call's lifecycle in the session's traces and metrics", () => {
  it('lists a state_change per status with the call id, and the duration of the completed call', async () => {
    const { projectId, tenantId } = account;
    const { sessionId } = await world.runtime.runTurn({ projectId, tenantId, message: 'hello' });
    const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, s)).toUTCString();
    const lifecycle: Array<[string, Record<string, string>]> = [
      ['initiated', { Timestamp: at(0) }],
      ['ringing', { Timestamp: at(2) }],
      ['in-progress', { Timestamp: at(5) }],
      ['completed', { Timestamp: at(47), CallDuration: '42' }],
    ];
    for (const [CallStatus, more] of lifecycle)
      await status(sessionId, { CallSid: 'CAlife', CallStatus, Direction: 'inbound', ...more });
    await status(sessionId, {
      CallSid: 'CAfail',
      CallStatus: 'failed',
      ErrorCode: '31005',
      Timestamp: at(50),
    });
    // A repeated callback is recorded once.
    await status(sessionId, { CallSid: 'CAlife', CallStatus: 'ringing', Timestamp: at(2) });

    const base = `/api/projects/${projectId}/sessions/${sessionId}`;
    const calls = (body: Json) => (body.traces as Json[]).filter((t) => t.name === 'voice_call_status');
    const page = await until(`${base}/traces?limit=100`, (body) => calls(body).length === 5);
    expect(
      calls(page).map((t) => [
        t.eventType,
        t.status,
        t.attributes.callId,
        t.attributes.to,
        t.startedAt,
        t.durationMs,
      ]),
    ).toEqual([
      ['state_change', 'ok', 'CAlife', 'initiated', '2026-11-26T09:00:00.000Z', null],
      ['state_change', 'ok', 'CAlife', 'ringing', '2026-11-26T09:00:02.000Z', null],
      ['state_change', 'ok', 'CAlife', 'in-progress', '2026-11-26T09:00:05.000Z', null],
      ['state_change', 'ok', 'CAlife', 'completed', '2026-11-26T09:00:47.000Z', 42_000],
      ['state_change', 'error', 'CAfail', 'failed', '2026-11-26T09:00:50.000Z', null],
    ]);
    const completed = calls(page)[3];
    expect(completed?.attributes).toEqual({
      callId: 'CAlife',
      to: 'completed',
      accountId: account.accountSid,
      direction: 'inbound',
      durationSeconds: 42,
    });
    expect(calls(page)[4]?.attributes.errorCode).toBe('31005');
    // One trace per call.
    expect(
      new Set(
        calls(page)
          .slice(0, 4)
          .map((t) => t.traceId),
      ).size,
    ).toBe(1);

    const metrics = (await until(`${base}/metrics`, () => true)).data as Json;
    expect(metrics.voiceCalls).toEqual([
      {
        callId: 'CAlife',
        status: 'completed',
        statuses: [
          { status: 'initiated', at: '2026-11-26T09:00:00.000Z' },
          { status: 'ringing', at: '2026-11-26T09:00:02.000Z' },
          { status: 'in-progress', at: '2026-11-26T09:00:05.000Z' },
          { status: 'completed', at: '2026-11-26T09:00:47.000Z' },
        ],
        durationMs: 42_000,
        firstResponseTimeMs: null,
        meanResponseTimeMs: null,
        turnCount: null,
        sttConfidence: null,
        bargeInRate: null,
        silenceDurationMs: null,
      },
      expect.objectContaining({ callId: 'CAfail', status: 'failed', durationMs: null }),
    ]);
    // The statuses are counted as state changes but are not turns of the conversation.
    expect(metrics.eventCountByType.state_change).toBeGreaterThanOrEqual(5);
    expect((metrics.turns as Json[]).some((t) => t.name === 'voice_call_status')).toBe(false);

    // The session list: each call with its latest status (an extension, absent without calls).
    const list = await until(
      `/api/public/analytics/projects/${projectId}/sessions?sessionIds=${sessionId}`,
      (body) => body.sessions?.[0]?.voiceCalls?.length === 2,
    );
    expect(list.sessions[0].voiceCalls).toEqual([
      { callId: 'CAlife', status: 'completed', at: '2026-11-26T09:00:47.000Z', durationSeconds: 42 },
      { callId: 'CAfail', status: 'failed', at: '2026-11-26T09:00:50.000Z', durationSeconds: null },
    ]);
  });
});
