import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { createKeyring, loadConfig, migrate, type Pool, silentLogger } from '@parley/platform';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import {
  createAgentStore,
  createPriceCards,
  createProviderRegistry,
  createRuntime,
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
  encodeMulaw,
  FRAME_SAMPLES,
  MULAW_SILENCE,
  voiceSettingsOf,
} from '@parley/voice';
import { startRealtimeStandIn } from '@parley/voice/testing';
import { WebSocket } from 'ws';
import { type Latency, latencyOf } from './stats.js';

export interface VoiceRealtimeBenchResult {
  utterances: number;
  /** The caller's frame that ended the utterance (its send) → the first reply frame received. */
  total: Latency;
  /** The stand-in's own time: the append that ended the utterance received → its first audio delta sent. */
  model: Latency;
  /** total - model: caller frame → Parley → stand-in, plus stand-in delta → Parley → caller frame. */
  added: Latency;
  /** Of added: the caller's frame sent → the stand-in received its append. */
  inbound: Latency;
  /** Of added: the stand-in's first delta sent → the caller received the first reply frame. */
  outbound: Latency;
  /** Utterances without a reply within 10 s. */
  lost: number;
}

const PUBLIC = 'https://parley.example.com';
const tone = (ms: number): Uint8Array[] =>
  Array.from({ length: ms / 20 }, (_, f) =>
    encodeMulaw(
      Int16Array.from({ length: FRAME_SAMPLES }, (_, i) =>
        Math.round(6000 * Math.sin((2 * Math.PI * 300 * (f * FRAME_SAMPLES + i)) / 8000)),
      ),
    ),
  );
const silence = (ms: number): Uint8Array[] =>
  Array.from({ length: ms / 20 }, () => new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE));

/**
 * Realtime voice mode against the OpenAI Realtime API stand-in: a Twilio-signed `/voice/connect`,
 * then one media stream (pcm16 sessions: 8 kHz µ-law → 24 kHz PCM and back) carrying utterances
 * paced at 20 ms per frame as the telephony provider sends them. The stand-in's server VAD ends
 * each utterance after 500 ms of silence and answers after `modelDelayMs` with the recorded
 * deltas. Per utterance: from the caller's frame that ended it to the first reply frame the
 * caller receives, minus the stand-in's own time (all clocks are this process's performance.now()).
 */
export async function benchVoiceRealtime(
  pool: Pool,
  shape: { utterances: number; modelDelayMs: number },
  log: (line: string) => void,
): Promise<VoiceRealtimeBenchResult> {
  await migrate(pool, [
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    runtimeMigrations,
    telephonyMigrations,
  ]);
  const standIn = await startRealtimeStandIn({ apiKey: 'sk-bench', responseDelayMs: shape.modelDelayMs });
  const store = createPostgresEventStore({ pool, upcast });
  const auth = createAuthStore(pool);
  const keyring = createKeyring(randomBytes(32));
  const tenant = await auth.createTenant({ name: 'bench realtime voice' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench-realtime-voice' });
  const account = { accountSid: 'AC_bench_realtime', authToken: 'bench-auth-token' };
  const accounts = createTelephonyAccountStore(pool, keyring);
  await accounts.add({ ...account, projectId: project.id });
  await createAgentStore(pool).create(project.id, {
    name: 'voice',
    provider: 'openai-compatible',
    model: 'gpt-realtime',
    systemPrompt: 'You answer calls.',
  });
  const runtime = createRuntime({
    pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const settings = voiceSettingsOf(
    loadConfig({ VOICE_ENABLED: 'true', VOICE_MODE: 'realtime', VOICE_REALTIME_ENABLED: 'true' }),
  );
  const limiter = createInProcessVoiceConcurrencyLimiter();
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000 },
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
      realtimeProviders: [createOpenAiRealtimeProvider({ url: standIn.url, apiKey: 'sk-bench' })],
    },
  });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const stream = await connectCall(app, account);
    return await measure(wsBase, stream, account.accountSid, standIn, shape.utterances, log);
  } finally {
    await app.close();
    await standIn.close();
  }
}

async function connectCall(
  app: Awaited<ReturnType<typeof buildApp>>,
  account: { accountSid: string; authToken: string },
) {
  const form = new URLSearchParams({
    AccountSid: account.accountSid,
    CallSid: 'CA_bench',
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
  if (res.statusCode !== 200) throw new Error(`voice/connect answered ${res.statusCode}`);
  const url = /<Stream url="([^"]+)"/.exec(res.body)?.[1] ?? '';
  const parameters: Record<string, string> = {};
  for (const m of res.body.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g))
    parameters[m[1] as string] = m[2] as string;
  return { path: new URL(url).pathname, parameters };
}

async function measure(
  wsBase: string,
  stream: { path: string; parameters: Record<string, string> },
  accountSid: string,
  standIn: Awaited<ReturnType<typeof startRealtimeStandIn>>,
  utterances: number,
  log: (line: string) => void,
): Promise<VoiceRealtimeBenchResult> {
  const socket = new WebSocket(`${wsBase}${stream.path}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const streamSid = 'MZ_bench';
  const sentAt: number[] = [];
  let firstMedia: number | null = null;
  let mark: string | null = null;
  socket.on('message', (data) => {
    const m = JSON.parse(String(data)) as { event: string; mark?: { name: string } };
    if (m.event === 'media' && firstMedia === null) firstMedia = performance.now();
    if (m.event === 'mark') mark = m.mark?.name ?? null;
  });
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  send({
    event: 'start',
    streamSid,
    start: { streamSid, accountSid, callSid: 'CA_bench', customParameters: stream.parameters },
  });
  const frame = (bytes: Uint8Array) => {
    sentAt.push(performance.now());
    send({
      event: 'media',
      streamSid,
      media: { track: 'inbound', payload: Buffer.from(bytes).toString('base64') },
    });
  };
  const total: number[] = [];
  const model: number[] = [];
  const added: number[] = [];
  const inbound: number[] = [];
  const outbound: number[] = [];
  let lost = 0;
  const speech = [...tone(400), ...silence(600)];
  // The first utterances warm the code paths up (JIT, schemas) and are not counted.
  const warmup = 2;
  for (let u = 0; u < warmup + utterances; u++) {
    firstMedia = null;
    mark = null;
    const started = performance.now();
    // Paced as the provider sends them; then silence until the reply (and its mark) came back.
    for (let i = 0; ; i++) {
      const due = started + i * 20 - performance.now();
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      frame(i < speech.length ? (speech[i] as Uint8Array) : (silence(20)[0] as Uint8Array));
      if ((firstMedia !== null && mark !== null) || performance.now() - started > 10_000) break;
    }
    const timing = standIn.timings[u];
    const reply: number | null = firstMedia;
    if (timing === undefined || timing.firstDeltaAt === null || reply === null) {
      if (u >= warmup) lost += 1;
      continue;
    }
    send({ event: 'mark', streamSid, mark: { name: mark } });
    if (u < warmup) continue;
    const trigger = sentAt[timing.audioEndMs / 20 - 1] ?? Number.NaN;
    const own = timing.firstDeltaAt - timing.stoppedAt;
    total.push(reply - trigger);
    model.push(own);
    added.push(reply - trigger - own);
    inbound.push(timing.stoppedAt - trigger);
    outbound.push(reply - timing.firstDeltaAt);
    if ((u + 1 - warmup) % 5 === 0) log(`  ${u + 1 - warmup}/${utterances} utterances`);
  }
  send({ event: 'stop', streamSid });
  socket.close();
  return {
    utterances,
    total: latencyOf(total),
    model: latencyOf(model),
    added: latencyOf(added),
    inbound: latencyOf(inbound),
    outbound: latencyOf(outbound),
    lost,
  };
}
