import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { sessionStream, upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { createKeyring, loadConfig, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import {
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  type Runtime,
  runtimeMigrations,
} from '@parley/runtime';
import {
  callbackParams,
  computeRequestSignature,
  createTelephonyAccountStore,
  telephonyMigrations,
} from '@parley/telephony';
import {
  createInProcessVoiceConcurrencyLimiter,
  decodeMulaw,
  espeakTextToSpeech,
  FRAME_SAMPLES,
  MULAW_SILENCE,
  mediaStreamToken,
  rms,
  toTelephonyFrames,
  VOICE_CALL_METRICS_TRACE,
  type VoiceConcurrencyLimiter,
  type VoiceSettings,
  voiceSettingsOf,
} from '@parley/voice';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildApp } from '../../app.js';

const keyring = createKeyring(randomBytes(32));

const PUBLIC = 'https://parley.example.com';
const ENV = {
  VOICE_ENABLED: 'true',
  VOICE_MODE: 'pipeline',
  VOICE_STT_ENGINE: 'pocketsphinx',
  VOICE_TTS_ENGINE: 'espeak-ng',
};

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let runtime: Runtime;
const apps: FastifyInstance[] = [];
let n = 0;
/** The caller's voice, spoken once by espeak-ng: 8 kHz µ-law frames. */
let caller: Uint8Array[];

beforeAll(async () => {
  db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    runtimeMigrations,
    telephonyMigrations,
  ]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  auth = createAuthStore(db.pool);
  runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  caller = toTelephonyFrames(await espeakTextToSpeech().synthesize('what is the weather like today'));
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await store.close();
  await db.close();
});

async function newAccount() {
  n += 1;
  const tenant = await auth.createTenant({ name: `voice gateway ${n}` });
  const project = await auth.createProject({ tenantId: tenant.id, slug: `voice-gateway-${n}` });
  const accountSid = `AC${process.pid}g${Date.now()}g${n}`;
  const authToken = `gateway-auth-token-${n}`;
  await createTelephonyAccountStore(db.pool, keyring).add({ accountSid, projectId: project.id, authToken });
  return { tenantId: tenant.id, projectId: project.id, accountSid, authToken };
}
type Account = Awaited<ReturnType<typeof newAccount>>;

/** The API with the telephony webhooks and the media WebSocket, listening on 127.0.0.1. */
async function listeningApp(
  env: Record<string, string> = ENV,
  extra: { startTimeoutMs?: number; settings?: VoiceSettings } = {},
): Promise<{ app: FastifyInstance; wsBase: string; limiter: VoiceConcurrencyLimiter }> {
  const accounts = createTelephonyAccountStore(db.pool, keyring);
  const settings = extra.settings ?? voiceSettingsOf(loadConfig(env));
  const limiter = createInProcessVoiceConcurrencyLimiter();
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    telephonyVoice: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      settings,
      limiter,
      publicBaseUrl: PUBLIC,
      account: (sid) => accounts.secrets(sid),
      store,
    },
    voiceMedia: {
      account: (sid) => accounts.secrets(sid),
      store,
      runtime,
      settings,
      limiter,
      ...(extra.startTimeoutMs === undefined ? {} : { startTimeoutMs: extra.startTimeoutMs }),
    },
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, wsBase: `ws://127.0.0.1:${port}`, limiter };
}

function webhook(app: FastifyInstance, path: string, account: Account, fields: Record<string, string>) {
  const form = new URLSearchParams({ AccountSid: account.accountSid, ...fields });
  return app.inject({
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
}

/** `/voice/connect` and what its TwiML says: the stream's path and parameters. */
async function connect(app: FastifyInstance, account: Account, fields: Record<string, string>) {
  const res = await webhook(app, '/api/v1/voice/connect', account, { CallStatus: 'ringing', ...fields });
  expect(res.statusCode).toBe(200);
  const url = /<Stream url="([^"]+)"/.exec(res.body)?.[1];
  expect(url).toBeDefined();
  const parameters: Record<string, string> = {};
  for (const m of res.body.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g))
    parameters[m[1] as string] = m[2] as string;
  return { path: new URL(url as string).pathname, parameters };
}

interface Received {
  event: string;
  streamSid?: string;
  media?: { payload: string };
  mark?: { name: string };
}

/** A provider-side test client of the media stream (Twilio Media Streams messages). */
async function openStream(wsBase: string, path: string) {
  const socket = new WebSocket(`${wsBase}${path}`);
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let closed: { code: number; reason: string } | null = null;
  socket.on('message', (data) => {
    received.push(JSON.parse(String(data)) as Received);
    for (const w of waiters.splice(0)) w();
  });
  const closedP = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => {
      closed = { code, reason: String(reason) };
      for (const w of waiters.splice(0)) w();
      resolve(closed);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let seq = 0;
  const send = (message: Record<string, unknown>) =>
    socket.send(JSON.stringify({ ...message, sequenceNumber: String(++seq) }));
  return {
    socket,
    received,
    closed: closedP,
    send,
    /** Waits until a received message satisfies the predicate (or the socket closes). */
    async until(predicate: (all: Received[]) => boolean, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (closed !== null) throw new Error(`socket closed ${closed.code} ${closed.reason}`);
        if (Date.now() > deadline) throw new Error('timed out waiting for the gateway');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    start(input: {
      streamSid: string;
      accountSid: string;
      callSid: string;
      parameters: Record<string, string>;
    }) {
      send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
      send({
        event: 'start',
        streamSid: input.streamSid,
        start: {
          streamSid: input.streamSid,
          accountSid: input.accountSid,
          callSid: input.callSid,
          tracks: ['inbound'],
          customParameters: input.parameters,
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      });
    },
    /** Frames as `media` messages, as the provider sends them every 20 ms (here without waiting). */
    audio(streamSid: string, frames: Uint8Array[]) {
      for (const [i, frame] of frames.entries()) {
        send({
          event: 'media',
          streamSid,
          media: {
            track: 'inbound',
            chunk: String(i + 1),
            timestamp: String(i * 20),
            payload: Buffer.from(frame).toString('base64'),
          },
        });
      }
    },
  };
}

const silence = (ms: number): Uint8Array[] =>
  Array.from({ length: ms / 20 }, () => new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE));

/** The energy of the reply audio the gateway sent back (media messages up to a mark). */
function replyAudio(received: Received[]): { frames: number; rms: number } {
  const bytes = received
    .filter((m) => m.event === 'media')
    .map((m) => Buffer.from(m.media?.payload ?? '', 'base64'));
  return { frames: bytes.length, rms: rms(decodeMulaw(Buffer.concat(bytes))) };
}

async function events(stream: string) {
  const out: Array<{ type: string; data: Record<string, unknown> }> = [];
  for await (const e of store.readStream(stream)) out.push({ type: e.type, data: e.data });
  return out;
}

describe('the voice gateway media WebSocket /api/v1/voice/media/{callSid}', () => {
  it('answers a spoken sentence with a spoken reply and records the call metrics on the session', async () => {
    const { app, wsBase, limiter } = await listeningApp();
    const account = await newAccount();
    // The caller's session already exists (e.g. started on the web; the client token names it).
    const first = await runtime.runTurn({
      projectId: account.projectId,
      tenantId: account.tenantId,
      message: 'hello from the web',
    });
    const sessionId = first.sessionId;
    const callSid = 'CA_gateway_happy';
    const from = `client:parley-${sessionId}`;
    const { path, parameters } = await connect(app, account, { CallSid: callSid, From: from });
    expect(path).toBe(`/api/v1/voice/media/${callSid}`);
    expect(parameters).toEqual({
      projectId: account.projectId,
      sessionId,
      streamToken: mediaStreamToken(account.authToken, { callSid, projectId: account.projectId, sessionId }),
    });
    const status = (CallStatus: string, more: Record<string, string> = {}) =>
      webhook(app, '/api/v1/voice/status', account, { CallSid: callSid, From: from, CallStatus, ...more });
    expect((await status('in-progress')).statusCode).toBe(200);

    const client = await openStream(wsBase, path);
    const streamSid = 'MZ_gateway_happy';
    client.start({ streamSid, accountSid: account.accountSid, callSid, parameters });
    client.audio(streamSid, [...silence(300), ...caller, ...silence(1000)]);
    await client.until((all) => all.some((m) => m.event === 'mark'));

    const mark = client.received.find((m) => m.event === 'mark');
    expect(mark).toEqual({ event: 'mark', streamSid, mark: { name: 'reply-1' } });
    const reply = replyAudio(client.received);
    expect(reply.frames).toBeGreaterThan(25); // more than half a second of speech
    expect(reply.rms).toBeGreaterThan(300); // not silence
    for (const m of client.received.filter((r) => r.event === 'media')) {
      expect(m.streamSid).toBe(streamSid);
      expect(Buffer.from(m.media?.payload ?? '', 'base64')).toHaveLength(FRAME_SAMPLES);
    }
    client.send({ event: 'mark', streamSid, mark: { name: 'reply-1' } }); // played
    client.audio(streamSid, silence(400));
    expect(await limiter.active(account.tenantId, 'calls')).toBe(1); // admitted by /voice/connect
    client.send({ event: 'stop', streamSid, stop: { accountSid: account.accountSid, callSid } });
    expect((await client.closed).code).toBe(1000);
    expect(await limiter.active(account.tenantId, 'calls')).toBe(0); // the stream's end frees it
    expect((await status('completed', { CallDuration: '3' })).statusCode).toBe(200);

    const log = await events(sessionStream(sessionId));
    const voiceTurn = log.filter((e) => e.type === 'MessageReceived').at(-1);
    expect(String(voiceTurn?.data.text)).toMatch(/\w/); // what pocketsphinx heard
    expect(voiceTurn?.data.channelMetadata).toEqual({ callSid, streamSid });
    expect(log.filter((e) => e.type === 'AgentReplied')).toHaveLength(2);
    expect(log.filter((e) => e.type === 'VoiceCallStatusChanged').map((e) => e.data.status)).toEqual([
      'in-progress',
      'completed',
    ]);
    const metrics = log.filter(
      (e) => e.type === 'TraceEventRecorded' && e.data.name === VOICE_CALL_METRICS_TRACE,
    );
    expect(metrics).toHaveLength(1);
    const trace = metrics[0]?.data as Record<string, unknown> & { attributes: Record<string, unknown> };
    expect(trace).toMatchObject({
      sessionId,
      projectId: account.projectId,
      eventType: 'state_change',
      name: 'voice_call',
      status: 'ok',
      durationMs: trace.attributes.callDurationMs,
    });
    const a = trace.attributes;
    expect(a).toMatchObject({
      from: 'in-progress',
      to: 'ended',
      callSid,
      streamSid,
      mode: 'pipeline',
      sttEngine: 'pocketsphinx',
      ttsEngine: 'espeak-ng',
      turnCount: 1,
      utteranceCount: 1,
      emptyTranscripts: 0,
      failedTurns: 0,
      bargeInCount: 0,
      bargeInRate: 0,
    });
    expect(a.callDurationMs).toEqual(expect.any(Number));
    expect(a.firstResponseTimeMs).toEqual(expect.any(Number));
    expect(a.meanResponseTimeMs).toBe(a.firstResponseTimeMs);
    expect(a.latencyTargetMs).toBe(500);
    expect(a.withinLatencyTarget).toBe((a.firstResponseTimeMs as number) <= 500);
    expect(a.sttConfidence as number).toBeGreaterThan(0);
    expect(a.sttConfidence as number).toBeLessThanOrEqual(1);
    // 300 + 1000 + 400 ms of silence were sent, plus the quiet parts of the sentence.
    expect(a.silenceDurationMs as number).toBeGreaterThanOrEqual(1700);
  }, 60_000);

  it('starts a voice_pipeline/pstn session for a call without one; speech over the reply is a barge-in (clear)', async () => {
    const { app, wsBase } = await listeningApp();
    const account = await newAccount();
    const callSid = 'CA_gateway_barge';
    const { path, parameters } = await connect(app, account, { CallSid: callSid });
    const client = await openStream(wsBase, path);
    const streamSid = 'MZ_gateway_barge';
    client.start({ streamSid, accountSid: account.accountSid, callSid, parameters });
    client.audio(streamSid, [...silence(200), ...caller, ...silence(800)]);
    await client.until((all) => all.some((m) => m.event === 'mark'));
    // The reply is "playing" (its mark not echoed): the caller speaks again.
    client.audio(streamSid, [...caller, ...silence(800)]);
    await client.until((all) => all.filter((m) => m.event === 'mark').length === 2);
    const order = client.received.map((m) => m.event).filter((e) => e !== 'media');
    expect(order).toEqual(['mark', 'clear', 'mark']);
    expect(client.received.find((m) => m.event === 'clear')).toEqual({ event: 'clear', streamSid });
    client.send({ event: 'mark', streamSid, mark: { name: 'reply-2' } });
    client.send({ event: 'stop', streamSid });
    expect((await client.closed).code).toBe(1000);

    const started = await db.pool.query<{ session_id: string }>(
      `select data->>'sessionId' as session_id from events where type = 'SessionStarted' and data->>'projectId' = $1`,
      [account.projectId],
    );
    expect(started.rows).toHaveLength(1);
    const sessionId = started.rows[0]?.session_id;
    const log = await events(sessionStream(sessionId as string));
    expect(log[0]?.type).toBe('SessionStarted');
    expect(log[0]?.data).toMatchObject({ channel: 'voice_pipeline', channelType: 'pstn' });
    const trace = log.find((e) => e.type === 'TraceEventRecorded' && e.data.name === 'voice_call');
    expect((trace?.data as { attributes?: Record<string, unknown> } | undefined)?.attributes).toMatchObject({
      turnCount: 2,
      utteranceCount: 2,
      bargeInCount: 1,
      bargeInRate: 0.5,
    });
  }, 60_000);

  it('records the metrics of a call that hangs up without speaking on the session it named, never on another project session', async () => {
    const { app, wsBase } = await listeningApp();
    const account = await newAccount();
    const other = await newAccount();
    const mine = await runtime.runTurn({
      projectId: account.projectId,
      tenantId: account.tenantId,
      message: 'hi',
    });
    const theirs = await runtime.runTurn({
      projectId: other.projectId,
      tenantId: other.tenantId,
      message: 'hi',
    });
    for (const [callSid, sessionId] of [
      ['CA_silent_mine', mine.sessionId],
      ['CA_silent_theirs', theirs.sessionId],
    ] as const) {
      const { path, parameters } = await connect(app, account, { CallSid: callSid, sessionId });
      expect(parameters.sessionId).toBe(sessionId);
      const client = await openStream(wsBase, path);
      client.start({ streamSid: `MZ_${callSid}`, accountSid: account.accountSid, callSid, parameters });
      client.audio(`MZ_${callSid}`, silence(600));
      client.socket.close(); // the provider hangs up without `stop`
      await client.closed;
    }
    const traceOf = async (sessionId: string) => {
      // Recorded after the close: wait for it.
      for (let i = 0; i < 50; i++) {
        const found = (await events(sessionStream(sessionId))).find(
          (e) => e.type === 'TraceEventRecorded' && e.data.name === 'voice_call',
        );
        if (found) return found.data.attributes as Record<string, unknown>;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return undefined;
    };
    expect(await traceOf(mine.sessionId)).toMatchObject({
      callSid: 'CA_silent_mine',
      turnCount: 0,
      utteranceCount: 0,
      firstResponseTimeMs: null,
      sttConfidence: null,
      bargeInRate: 0,
      silenceDurationMs: 600,
    });
    expect(await traceOf(theirs.sessionId)).toBeUndefined();
  });

  describe('refusals (the socket is closed, nothing is recorded)', () => {
    async function refused(
      mutate: (start: {
        streamSid: string;
        accountSid: string;
        callSid: string;
        parameters: Record<string, string>;
      }) => void,
      options: { path?: string; env?: Record<string, string> } = {},
    ) {
      const { app, wsBase } = await listeningApp(options.env ?? ENV);
      const account = await newAccount();
      const callSid = `CA_refused_${n}`;
      const { path, parameters } = await connect(app, account, { CallSid: callSid });
      const client = await openStream(wsBase, options.path ?? path);
      const start = {
        streamSid: 'MZ_refused',
        accountSid: account.accountSid,
        callSid,
        parameters: { ...parameters },
      };
      mutate(start);
      client.start(start);
      client.audio('MZ_refused', caller.slice(0, 5));
      const closed = await client.closed;
      expect(client.received).toEqual([]);
      return closed;
    }

    it('closes 1008 for a wrong stream token', async () => {
      expect(await refused((s) => (s.parameters.streamToken = 'forged'))).toEqual({
        code: 1008,
        reason: 'stream not authorized',
      });
    });
    it('closes 1008 without a stream token', async () => {
      expect((await refused((s) => delete s.parameters.streamToken)).code).toBe(1008);
    });
    it('closes 1008 for a token of another call (the path names another CallSid)', async () => {
      expect((await refused(() => {}, { path: '/api/v1/voice/media/CA_someone_else' })).code).toBe(1008);
    });
    it('closes 1008 for an unknown provider account', async () => {
      expect((await refused((s) => (s.accountSid = 'AC_unknown'))).code).toBe(1008);
    });
    it('closes 1008 for a changed sessionId parameter', async () => {
      expect((await refused((s) => (s.parameters.sessionId = 'ses_other'))).code).toBe(1008);
    });
    it('closes 1011 while the pipeline is not configured (no speech-to-text engine)', async () => {
      expect(await refused(() => {}, { env: { ...ENV, VOICE_STT_ENGINE: '' } })).toEqual({
        code: 1011,
        reason: 'voice pipeline not configured',
      });
    });
    it('closes 1008 for a start that is not a start message', async () => {
      const { wsBase } = await listeningApp();
      const client = await openStream(wsBase, '/api/v1/voice/media/CA_x');
      client.send({ event: 'start', start: { streamSid: 'MZ' } });
      expect(await client.closed).toEqual({ code: 1008, reason: 'invalid start' });
    });
    it('closes 1008 when no start comes in time', async () => {
      const { wsBase } = await listeningApp(ENV, { startTimeoutMs: 200 });
      const client = await openStream(wsBase, '/api/v1/voice/media/CA_x');
      client.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
      expect(await client.closed).toEqual({ code: 1008, reason: 'no start' });
    });
    it('closes 1007 for a message that is not JSON', async () => {
      const { wsBase } = await listeningApp();
      const client = await openStream(wsBase, '/api/v1/voice/media/CA_x');
      client.socket.send('not json');
      expect(await client.closed).toEqual({ code: 1007, reason: 'not JSON' });
    });
  });
});
