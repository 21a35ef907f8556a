import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { sessionStream, upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { createKeyring, loadConfig, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { listLedger, llmLedgerProjection } from '@parley/projection-llm-ledger';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
} from '@parley/projection-runner';
import { createTraceReads, tracesProjection } from '@parley/projection-traces';
import {
  createAgentStore,
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
  createOpenAiRealtimeProvider,
  decodeMulaw,
  espeakTextToSpeech,
  FRAME_SAMPLES,
  MULAW_SILENCE,
  rms,
  toTelephonyFrames,
  type VoiceSettings,
  voiceSettingsOf,
} from '@parley/voice';
import { type RealtimeStandIn, startRealtimeStandIn } from '@parley/voice/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildApp } from '../../app.js';

const keyring = createKeyring(randomBytes(32));
const PUBLIC = 'https://parley.example.com';
const REALTIME_ENV = {
  VOICE_ENABLED: 'true',
  VOICE_MODE: 'auto',
  VOICE_REALTIME_ENABLED: 'true',
  VOICE_REALTIME_DEFAULT_VOICE: 'marin',
};
const projections = [llmLedgerProjection, tracesProjection];

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let runtime: Runtime;
let runner: ProjectionRunner;
let standIn: RealtimeStandIn;
const apps: FastifyInstance[] = [];
let n = 0;
let question: Uint8Array[];
let thanks: Uint8Array[];

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
  runner = createProjectionRunner({ pool: db.pool, store, projections, pollIntervalMs: 20 });
  await runner.start();
  const tts = espeakTextToSpeech();
  question = toTelephonyFrames(await tts.synthesize('what is the weather in Paris'));
  thanks = toTelephonyFrames(await tts.synthesize('thank you'));
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await standIn?.close();
  await runner?.stop();
  await store?.close();
  await db?.close();
});

/** A tenant, project, telephony account and the project's agent (a realtime model with the `weather` tool). */
async function newAccount(model = 'gpt-realtime') {
  n += 1;
  const tenant = await auth.createTenant({ name: `realtime voice ${n}` });
  const project = await auth.createProject({ tenantId: tenant.id, slug: `realtime-voice-${n}` });
  const accountSid = `AC${process.pid}r${Date.now()}r${n}`;
  const authToken = `realtime-auth-token-${n}`;
  await createTelephonyAccountStore(db.pool, keyring).add({ accountSid, projectId: project.id, authToken });
  await createAgentStore(db.pool).create(project.id, {
    name: 'weather-line',
    provider: 'openai-compatible',
    model,
    systemPrompt: 'You are the weather line.',
    tools: [
      {
        name: 'weather',
        description: 'The weather in a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ],
  });
  return { tenantId: tenant.id, projectId: project.id, accountSid, authToken };
}
type Account = Awaited<ReturnType<typeof newAccount>>;

/** The API; `realtimeUrl` null: no realtime provider configured. */
async function listeningApp(settings: VoiceSettings, realtimeUrl: string | null) {
  const accounts = createTelephonyAccountStore(db.pool, keyring);
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
      realtimeProviders:
        realtimeUrl === null
          ? []
          : [createOpenAiRealtimeProvider({ url: realtimeUrl, apiKey: 'sk-standin' })],
    },
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, wsBase: `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** The Twilio-signed `/voice/connect` and the stream its TwiML names. */
async function connect(app: FastifyInstance, account: Account, callSid: string) {
  const form = new URLSearchParams({
    AccountSid: account.accountSid,
    CallSid: callSid,
    CallStatus: 'ringing',
  });
  const path = '/api/v1/voice/connect';
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
  const url = /<Stream url="([^"]+)"/.exec(res.body)?.[1] as string;
  const parameters: Record<string, string> = {};
  for (const m of res.body.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g))
    parameters[m[1] as string] = m[2] as string;
  return { path: new URL(url).pathname, parameters };
}

interface Received {
  event: string;
  streamSid?: string;
  media?: { payload: string };
  mark?: { name: string };
}

/** The telephony provider's side of the media stream (Twilio Media Streams messages). */
async function openStream(
  wsBase: string,
  path: string,
  account: Account,
  callSid: string,
  streamSid: string,
) {
  const socket = new WebSocket(`${wsBase}${path}`);
  const received: Received[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Received));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const send = (message: Record<string, unknown>) => socket.send(JSON.stringify(message));
  return {
    received,
    closed,
    send,
    start(parameters: Record<string, string>) {
      send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
      send({
        event: 'start',
        streamSid,
        start: {
          streamSid,
          accountSid: account.accountSid,
          callSid,
          tracks: ['inbound'],
          customParameters: parameters,
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      });
    },
    /** As the provider sends them: one 20 ms frame every 20 ms. */
    async paced(frames: Uint8Array[]) {
      const started = performance.now();
      for (const [i, frame] of frames.entries()) {
        const due = started + i * 20 - performance.now();
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
        send({
          event: 'media',
          streamSid,
          media: { track: 'inbound', payload: Buffer.from(frame).toString('base64') },
        });
      }
    },
    audio(frames: Uint8Array[]) {
      for (const frame of frames)
        send({
          event: 'media',
          streamSid,
          media: { track: 'inbound', payload: Buffer.from(frame).toString('base64') },
        });
    },
  };
}

const silence = (ms: number): Uint8Array[] =>
  Array.from({ length: ms / 20 }, () => new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE));

async function until(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function events(sessionId: string) {
  const out: Array<{ type: string; data: Record<string, unknown> }> = [];
  for await (const e of store.readStream(sessionStream(sessionId))) out.push({ type: e.type, data: e.data });
  return out;
}

/** The project's realtime ledger rows, once the projection has them all. */
async function realtimeLedger(projectId: string, expected: number) {
  const page = () =>
    listLedger(db.pool, {
      projectId,
      from: new Date(Date.now() - 3_600_000),
      to: new Date(Date.now() + 60_000),
      sourceSubtypes: ['realtime_response'],
      sort: { field: 'timestamp', direction: 'asc' },
      dataMode: 'summary',
      limit: 10,
      offset: 0,
    });
  await until(async () => (await page()).total >= expected, 'the ledger projection');
  return page();
}

const settingsOf = (env: Record<string, string>) => voiceSettingsOf(loadConfig({ ...REALTIME_ENV, ...env }));

describe('the media WebSocket in realtime mode (OpenAI Realtime API stand-in)', () => {
  it('speaks through the realtime model: audio both ways, a tool call, barge-in, ledger and trace', async () => {
    standIn = await startRealtimeStandIn({
      apiKey: 'sk-standin',
      script: [{ kind: 'function_call', name: 'weather', arguments: '{"city":"Paris"}' }],
      userTranscripts: ['what is the weather in Paris', 'thank you', 'thank you'],
      deltaIntervalMs: 60,
    });
    // voice.mode=auto picks realtime: the agent's model is a realtime one and realtime is enabled.
    const { app, wsBase } = await listeningApp(settingsOf({}), standIn.url);
    const account = await newAccount();
    const callSid = 'CA_realtime_e2e';
    const streamSid = 'MZ_realtime_e2e';
    const { path, parameters } = await connect(app, account, callSid);
    const client = await openStream(wsBase, path, account, callSid, streamSid);
    client.start(parameters);
    const count = (event: string) => client.received.filter((m) => m.event === event).length;

    // Turn 1: a question; the model calls `weather`, then answers with the recorded audio.
    client.audio([...silence(200), ...question, ...silence(800)]);
    await until(() => count('mark') === 1, 'the first reply');
    expect(standIn.models).toEqual(['gpt-realtime']);
    const update = standIn.received[0] as {
      type: string;
      session: { instructions: string; tools: Array<{ name: string }>; audio: unknown };
    };
    expect(update.type).toBe('session.update');
    expect(update.session.instructions).toContain('You are the weather line.');
    expect(update.session.tools.map((t) => t.name)).toContain('weather');
    expect(update.session.tools.map((t) => t.name)).not.toContain('handoff');
    expect(update.session.audio).toMatchObject({
      input: { format: { type: 'audio/pcm', rate: 24_000 } },
      output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'marin' },
    });
    const output = standIn.received.find(
      (e) => (e.item as { type?: string } | undefined)?.type === 'function_call_output',
    ) as { item: { output: string } } | undefined;
    expect(JSON.parse(output?.item.output ?? '{}')).toMatchObject({ city: 'Paris', demo: true });
    const reply = client.received.filter((m) => m.event === 'media');
    expect(reply).toHaveLength(60); // 1.2 s of 24 kHz speech → 60 frames of 20 ms, 8 kHz µ-law
    for (const m of reply) {
      expect(m.streamSid).toBe(streamSid);
      expect(Buffer.from(m.media?.payload ?? '', 'base64')).toHaveLength(FRAME_SAMPLES);
    }
    expect(
      rms(decodeMulaw(Buffer.concat(reply.map((m) => Buffer.from(m.media?.payload ?? '', 'base64'))))),
    ).toBeGreaterThan(300);
    client.send({ event: 'mark', streamSid, mark: { name: 'rt-1' } });

    // Turn 2: the caller speaks over the reply → response.cancel to the model, `clear` to Twilio.
    client.audio([...thanks, ...silence(800)]);
    await until(() => count('media') > 60, 'the second reply');
    await client.paced([...thanks, ...silence(800)]);
    await until(() => count('clear') === 1 && count('mark') === 2, 'the barge-in and the third reply');
    expect(standIn.received.filter((e) => e.type === 'response.cancel')).toHaveLength(1);
    expect(standIn.received.filter((e) => e.type === 'conversation.item.truncate')).toHaveLength(1);

    client.send({ event: 'stop', streamSid, stop: { accountSid: account.accountSid, callSid } });
    expect((await client.closed).code).toBe(1000);

    // The ledger (its projection) has a row per realtime response, and names the call's session.
    const ledger = await realtimeLedger(account.projectId, 4);
    expect(ledger.total).toBe(4);
    const sessionId = ledger.generations[0]?.sessionId as string;
    expect(ledger.generations[0]).toMatchObject({
      provider: 'openai',
      model: 'gpt-realtime',
      sourceSubtype: 'realtime_response',
      inputTokens: 120,
      outputTokens: 80,
    });
    const log = await events(sessionId);
    expect(log.find((e) => e.type === 'SessionStarted')?.data).toMatchObject({
      channel: 'voice_realtime',
      channelType: 'pstn',
      agentName: 'weather-line',
    });
    expect(log.filter((e) => e.type === 'MessageReceived').map((e) => e.data.text)).toEqual([
      'what is the weather in Paris',
      'thank you',
      'thank you',
    ]);
    expect(log.find((e) => e.type === 'MessageReceived')?.data.channelMetadata).toEqual({
      callSid,
      streamSid,
    });
    const replies = log.filter((e) => e.type === 'AgentReplied').map((e) => e.data.text);
    expect(replies[0]).toBe('It is sunny in Paris today.');
    expect(replies).toHaveLength(3);
    const calls = log.filter((e) => e.type === 'LlmCallRecorded').map((e) => e.data);
    expect(calls).toHaveLength(4); // function call, its answer, the cancelled reply, the last reply
    for (const c of calls)
      expect(c).toMatchObject({
        source: 'runtime',
        sourceSubtype: 'realtime_response',
        provider: 'openai',
        model: 'gpt-realtime',
      });
    expect(calls[0]?.usage).toMatchObject({
      inputTokens: 120,
      cachedTokens: 20,
      outputTokens: 80,
      totalTokens: 200,
    });
    const traces = log.filter((e) => e.type === 'TraceEventRecorded').map((e) => e.data);
    expect(traces.find((t) => t.eventType === 'tool_call')).toMatchObject({ name: 'weather', status: 'ok' });
    expect(
      traces
        .filter((t) => t.eventType === 'response')
        .map((t) => (t.attributes as { interrupted: boolean }).interrupted),
    ).toEqual([false, true, false]);
    const metrics = traces.find((t) => t.name === 'voice_call')?.attributes as Record<string, unknown>;
    expect(metrics).toMatchObject({
      mode: 'realtime',
      realtimeModel: 'gpt-realtime',
      callSid,
      streamSid,
      bargeInCount: 1,
      turnCount: 3,
    });

    // The turns in the trace API (its projection).
    const reads = createTraceReads(db.pool);
    await until(async () => {
      const p = await reads.listTraces({ projectId: account.projectId, sessionId, limit: 200, offset: 0 });
      return (p?.traces ?? []).some((t) => t.name === 'voice_call');
    }, 'the traces projection');
    const page = await reads.listTraces({
      projectId: account.projectId,
      sessionId,
      limit: 200,
      offset: 0,
    });
    const llmCalls = page?.traces.filter((t) => t.eventType === 'llm_call') ?? [];
    expect(llmCalls).toHaveLength(4);
    for (const t of llmCalls) expect(t.llmCall).not.toBeNull();
    expect(page?.traces.filter((t) => t.eventType === 'response')).toHaveLength(3);
  });

  it('auto answers with the pipeline when the agent model is not a realtime one', async () => {
    const local = await startRealtimeStandIn({ apiKey: 'sk-standin' });
    try {
      const { app, wsBase } = await listeningApp(settingsOf({}), local.url);
      const account = await newAccount('gpt-4o-mini');
      const { path, parameters } = await connect(app, account, 'CA_auto_pipeline');
      const client = await openStream(wsBase, path, account, 'CA_auto_pipeline', 'MZ_auto');
      client.start(parameters);
      // No speech engines configured here: the pipeline it chose cannot run.
      expect(await client.closed).toEqual({ code: 1011, reason: 'voice pipeline not configured' });
      expect(local.models).toEqual([]);
    } finally {
      await local.close();
    }
  });

  it('closes 1011 in realtime mode without a realtime provider', async () => {
    const { app, wsBase } = await listeningApp(settingsOf({ VOICE_MODE: 'realtime' }), null);
    const account = await newAccount();
    const { path, parameters } = await connect(app, account, 'CA_no_provider');
    const client = await openStream(wsBase, path, account, 'CA_no_provider', 'MZ_no_provider');
    client.start(parameters);
    expect(await client.closed).toEqual({ code: 1011, reason: 'realtime provider not configured' });
  });

  it('closes 1011 in realtime mode when the provider is unreachable', async () => {
    const { app, wsBase } = await listeningApp(
      settingsOf({ VOICE_MODE: 'realtime' }),
      'ws://127.0.0.1:9/v1/realtime',
    );
    const account = await newAccount();
    const { path, parameters } = await connect(app, account, 'CA_unreachable');
    const client = await openStream(wsBase, path, account, 'CA_unreachable', 'MZ_unreachable');
    client.start(parameters);
    expect(await client.closed).toEqual({ code: 1011, reason: 'realtime provider not reachable' });
  });

  it('ends the call at voice.realtime.maxSessionDurationMs', async () => {
    const local = await startRealtimeStandIn({ apiKey: 'sk-standin' });
    try {
      const settings = settingsOf({ VOICE_REALTIME_MAX_SESSION_DURATION_MS: '1000' });
      const { app, wsBase } = await listeningApp(settings, local.url);
      const account = await newAccount();
      const { path, parameters } = await connect(app, account, 'CA_capped');
      const client = await openStream(wsBase, path, account, 'CA_capped', 'MZ_capped');
      const started = Date.now();
      client.start(parameters);
      expect(await client.closed).toEqual({ code: 1000, reason: 'max_session_duration' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await local.close();
    }
  });
});
