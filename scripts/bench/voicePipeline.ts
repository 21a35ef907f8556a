import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { createKeyring, loadConfig, migrate, type Pool, silentLogger } from '@parley/platform';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { createPriceCards, createProviderRegistry, createRuntime, runtimeMigrations } from '@parley/runtime';
import {
  callbackParams,
  computeRequestSignature,
  createTelephonyAccountStore,
  telephonyMigrations,
} from '@parley/telephony';
import {
  createInProcessVoiceConcurrencyLimiter,
  decodeMulaw,
  endSilenceMsFor,
  espeakTextToSpeech,
  FRAME_MS,
  FRAME_SAMPLES,
  MULAW_SILENCE,
  rms,
  toTelephonyFrames,
  voiceSettingsOf,
  WER_PHRASES,
  wordErrorRate,
} from '@parley/voice';
import { WebSocket } from 'ws';
import { type Latency, latencyOf } from './stats.js';

export interface VoicePipelineBenchResult {
  utterances: number;
  calls: number;
  latencyTargetMs: number;
  endSilenceMs: number;
  /** Client side: the last voiced frame of the caller sent → the first reply frame received. */
  firstAudio: Latency;
  /** Each utterance, in order. */
  samples: number[];
  /** Word error rate of what the pipeline heard (MessageReceived) against the phrases spoken. */
  wer: number;
  unanswered: number;
}

const PUBLIC = 'https://parley.example.com';
/** A frame counts as voiced (the end of speech is after the last one) above this RMS. */
const VOICED_RMS = 300;

interface Phrase {
  text: string;
  frames: Uint8Array[];
  /** Index of the last voiced frame. */
  lastVoiced: number;
}

async function phrases(): Promise<Phrase[]> {
  const tts = espeakTextToSpeech();
  const out: Phrase[] = [];
  for (const text of WER_PHRASES) {
    const frames = toTelephonyFrames(await tts.synthesize(text));
    let lastVoiced = 0;
    for (const [i, f] of frames.entries()) if (rms(decodeMulaw(f)) >= VOICED_RMS) lastVoiced = i;
    out.push({ text, frames, lastVoiced });
  }
  return out;
}

const silenceFrame = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);

/**
 * A Twilio Media Streams client: after `start`, one `media` frame every 20 ms (the phrase's frames
 * when one is queued, else silence), as a phone call's stream does. For each phrase: the time its
 * last voiced frame was sent and the time the first reply frame came back; the reply's mark is
 * echoed at once (played), then a pause before the next phrase.
 */
async function runCall(
  url: string,
  start: Record<string, unknown>,
  streamSid: string,
  queue: Phrase[],
  log: (line: string) => void,
): Promise<{ latencies: number[]; unanswered: number }> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let seq = 0;
  const send = (m: Record<string, unknown>) =>
    socket.send(JSON.stringify({ ...m, sequenceNumber: String(++seq) }));
  send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  send({ event: 'start', streamSid, start });
  let outgoing: Uint8Array[] = [];
  let endOfSpeech: number | null = null;
  let voicedLeft = -1;
  let firstAudio: number | null = null;
  let replyDone: (() => void) | null = null;
  socket.on('message', (data) => {
    const m = JSON.parse(String(data)) as { event: string; mark?: { name: string } };
    if (m.event === 'media' && firstAudio === null && endOfSpeech !== null) firstAudio = performance.now();
    if (m.event === 'mark') {
      send({ event: 'mark', streamSid, mark: { name: m.mark?.name } });
      replyDone?.();
    }
  });
  let chunk = 0;
  const t0 = performance.now();
  let running = true;
  const pump = (async () => {
    while (running) {
      const frame = outgoing.shift() ?? silenceFrame;
      send({
        event: 'media',
        streamSid,
        media: { track: 'inbound', chunk: String(++chunk), payload: Buffer.from(frame).toString('base64') },
      });
      if (voicedLeft === 0) endOfSpeech = performance.now();
      voicedLeft -= 1;
      const next = t0 + chunk * FRAME_MS;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  })();
  const latencies: number[] = [];
  let unanswered = 0;
  for (const phrase of queue) {
    endOfSpeech = null;
    firstAudio = null;
    const done = new Promise<boolean>((resolve) => {
      replyDone = () => resolve(true);
      setTimeout(() => resolve(false), 20_000);
    });
    outgoing = [...phrase.frames];
    voicedLeft = phrase.lastVoiced;
    const answered = await done;
    replyDone = null;
    if (!answered || firstAudio === null || endOfSpeech === null) {
      unanswered += 1;
      log(`  "${phrase.text}": no reply`);
    } else {
      latencies.push(firstAudio - endOfSpeech);
      log(`  "${phrase.text}": ${(firstAudio - endOfSpeech).toFixed(0)} ms`);
    }
    await new Promise((r) => setTimeout(r, 400)); // the caller listens, then speaks again
  }
  running = false;
  await pump;
  send({ event: 'stop', streamSid });
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    setTimeout(() => resolve(), 5_000);
  });
  return { latencies, unanswered };
}

/**
 * End of speech → first audio back through the real Twilio media stream socket of the API
 * (`/api/v1/voice/connect`, then `/api/v1/voice/media/<CallSid>`), pocketsphinx and espeak-ng,
 * the runtime's scripted agent. `utterances` espeak-ng phrases (WER_PHRASES, round robin) spoken
 * in real time, `perCall` per call.
 */
export async function benchVoicePipeline(
  pool: Pool,
  shape: { utterances: number; perCall: number; latencyTargetMs?: number },
  log: (line: string) => void,
): Promise<VoicePipelineBenchResult> {
  await migrate(pool, [
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    runtimeMigrations,
    telephonyMigrations,
  ]);
  const store = createPostgresEventStore({ pool, upcast });
  const auth = createAuthStore(pool);
  const tenant = await auth.createTenant({ name: 'bench voice' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench-voice' });
  const accounts = createTelephonyAccountStore(pool, createKeyring(randomBytes(32)));
  const accountSid = `ACbench${randomBytes(6).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  await accounts.add({ accountSid, projectId: project.id, authToken });
  const runtime = createRuntime({
    pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const settings = voiceSettingsOf(
    loadConfig({
      VOICE_ENABLED: 'true',
      VOICE_MODE: 'pipeline',
      VOICE_STT_ENGINE: 'pocketsphinx',
      VOICE_TTS_ENGINE: 'espeak-ng',
      ...(shape.latencyTargetMs === undefined
        ? {}
        : { VOICE_LATENCY_TARGET_MS: String(shape.latencyTargetMs) }),
    }),
  );
  const limiter = createInProcessVoiceConcurrencyLimiter();
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000 },
    telephonyVoice: {
      verifyApiKey: (k) => auth.verifyApiKey(k),
      settings,
      limiter,
      publicBaseUrl: PUBLIC,
      account: (sid) => accounts.secrets(sid),
      store,
    },
    voiceMedia: { account: (sid) => accounts.secrets(sid), store, runtime, settings, limiter },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const wsBase = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const spoken = await phrases();
    const latencies: number[] = [];
    const heard: Array<{ reference: string; hypothesis: string }> = [];
    let unanswered = 0;
    /** One call speaking `queue`: its latencies and what the pipeline heard of each phrase. */
    const oneCall = async (name: string, queue: Phrase[]) => {
      const callSid = `CAbench${name}${randomBytes(4).toString('hex')}`;
      const form = new URLSearchParams({ AccountSid: accountSid, CallSid: callSid, CallStatus: 'ringing' });
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/voice/connect',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': computeRequestSignature(
            authToken,
            `${PUBLIC}/api/v1/voice/connect`,
            callbackParams(form),
          ),
        },
        payload: form.toString(),
      });
      const streamUrl = /<Stream url="([^"]+)"/.exec(res.body)?.[1];
      if (res.statusCode !== 200 || streamUrl === undefined)
        throw new Error(`voice/connect answered ${res.statusCode}: ${res.body}`);
      const customParameters: Record<string, string> = {};
      for (const m of res.body.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g))
        customParameters[m[1] as string] = m[2] as string;
      const streamSid = `MZbench${name}`;
      const start = {
        streamSid,
        accountSid,
        callSid,
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      };
      const r = await runCall(`${wsBase}${new URL(streamUrl).pathname}`, start, streamSid, queue, log);
      const { rows } = await pool.query<{ text: string }>(
        `select data->>'text' as text from events where type = 'MessageReceived'
           and data->'channelMetadata'->>'callSid' = $1 order by position`,
        [callSid],
      );
      const heard = queue.map((p, i) => ({ reference: p.text, hypothesis: rows[i]?.text ?? '' }));
      return { ...r, heard };
    };

    // Warm-up, not timed: the JIT, the database connections, the first turns of the runtime.
    log('voice-pipeline: warm-up call, 2 utterances');
    await oneCall('warmup', spoken.slice(0, 2));
    const calls = Math.ceil(shape.utterances / shape.perCall);
    for (let c = 0; c < calls; c++) {
      const queue = Array.from(
        { length: Math.min(shape.perCall, shape.utterances - c * shape.perCall) },
        (_, i) => spoken[(c * shape.perCall + i) % spoken.length] as Phrase,
      );
      log(`voice-pipeline: call ${c + 1}/${calls}, ${queue.length} utterances`);
      const r = await oneCall(String(c), queue);
      latencies.push(...r.latencies);
      unanswered += r.unanswered;
      heard.push(...r.heard);
    }
    return {
      utterances: shape.utterances,
      calls,
      latencyTargetMs: settings.latencyTargetMs,
      endSilenceMs: endSilenceMsFor(settings.latencyTargetMs),
      firstAudio: latencyOf(latencies),
      samples: latencies,
      wer: wordErrorRate(heard),
      unanswered,
    };
  } finally {
    await app.close();
  }
}
