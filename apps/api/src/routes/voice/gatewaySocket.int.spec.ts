import { sessionStream } from '@parley/events';
import { loadConfig } from '@parley/platform';
import { createAgentStore } from '@parley/runtime';
import {
  createInProcessVoiceConcurrencyLimiter,
  decodeMulaw,
  encodeMulaw,
  espeakTextToSpeech,
  type GatewayFormat,
  pcm16ToSamples,
  resample,
  rms,
  VOICE_CALL_METRICS_TRACE,
  type VoiceConcurrencyLimiter,
  voiceSettingsOf,
} from '@parley/voice';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { VoiceGatewayRouteOptions } from './gatewaySocket.js';
import { createVoiceWorld, type VoiceWorld } from './voiceWorld.js';

const ENV = {
  VOICE_ENABLED: 'true',
  VOICE_MODE: 'pipeline',
  VOICE_STT_ENGINE: 'pocketsphinx',
  VOICE_TTS_ENGINE: 'espeak-ng',
};
const TOKEN = 'gateway-inbound-token-0123456789';

let world: VoiceWorld;
/** The caller's voice (espeak-ng, 22.05 kHz samples). */
let speech: { sampleRate: number; samples: Int16Array };
let n = 0;

beforeAll(async () => {
  world = await createVoiceWorld();
  speech = await espeakTextToSpeech().synthesize('what is the weather like today');
});
afterAll(async () => {
  await world?.close();
});

async function gatewayApp(
  env: Record<string, string> = ENV,
  limiter: VoiceConcurrencyLimiter = createInProcessVoiceConcurrencyLimiter(),
  extra: Partial<VoiceGatewayRouteOptions> = {},
) {
  const settings = voiceSettingsOf(loadConfig(env));
  const voiceGateway = {
    connections: world.connections,
    store: world.store,
    runtime: world.runtime,
    settings,
  };
  return world.listen({ voiceGateway: { ...voiceGateway, limiter, ...extra } });
}

/** A voice_gateway connection (or a voice connection on byoc_sip) of a new project. */
async function newConnection(
  kind: 'voice_gateway' | 'byoc_sip' = 'voice_gateway',
  active = true,
  agentName?: string,
) {
  n += 1;
  const project = await world.newProject();
  const identifier = `gw-${process.pid}-${n}`;
  const connection = await world.connections.create(project.projectId, {
    channelType: kind === 'byoc_sip' ? 'voice' : 'voice_gateway',
    ...(kind === 'byoc_sip'
      ? { provider: 'byoc_sip', settings: { sipGateway: { host: 'sip.example.net', port: 5080 } } }
      : {}),
    externalIdentifier: identifier,
    credentials: { inboundAuthToken: TOKEN },
    active,
    ...(agentName === undefined ? {} : { agentName }),
  });
  if (agentName !== undefined)
    await createAgentStore(world.db.pool).create(project.projectId, { name: agentName });
  const path =
    kind === 'byoc_sip'
      ? `/api/v1/channels/voice/byoc_sip/stream/${identifier}`
      : `/api/v1/channels/voice_gateway/stream/${identifier}`;
  expect(connection.webhookPath).toBe(path);
  return { ...project, connection, path };
}

type Json = Record<string, unknown>;

/** A gateway-side test client: JSON control frames and binary audio. */
async function openGateway(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  const control: Json[] = [];
  const audio: Buffer[] = [];
  let closed: { code: number; reason: string } | null = null;
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) audio.push(Buffer.from(data));
    else control.push(JSON.parse(data.toString('utf8')) as Json);
  });
  const closedP = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => {
      closed = { code, reason: String(reason) };
      resolve(closed);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    control,
    audio,
    closed: closedP,
    json: (frame: Json) => socket.send(JSON.stringify(frame)),
    async until(predicate: () => boolean, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (closed !== null) throw new Error(`socket closed ${closed.code} ${closed.reason}`);
        if (Date.now() > deadline) throw new Error('timed out waiting for the gateway socket');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** The caller's speech with silence around it, in 20 ms binary frames of the format. */
function callerFrames(format: GatewayFormat): Buffer[] {
  const rate = format.sampleRate;
  const voice = resample(speech.samples, speech.sampleRate, rate);
  const all = new Int16Array(voice.length + rate * 1.3);
  all.set(voice, Math.round(rate * 0.3));
  const perFrame = rate / 50;
  const frames: Buffer[] = [];
  for (let i = 0; i < all.length; i += perFrame) {
    const chunk = all.subarray(i, i + perFrame);
    if (format.encoding === 'mulaw') frames.push(Buffer.from(encodeMulaw(chunk)));
    else frames.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return frames;
}

describe('the voice gateway socket /api/v1/channels/voice_gateway/stream/{identifier}', () => {
  it('answers a spoken sentence in PCM16 at 16 kHz with spoken PCM16, and records the call on its session', async () => {
    const { wsBase } = await gatewayApp();
    const { projectId, connection, path } = await newConnection('voice_gateway', true, 'gateway-agent');
    const client = await openGateway(`${wsBase}${path}`, { authorization: `Bearer ${TOKEN}` });
    const format = { encoding: 'pcm16', sampleRate: 16000 } as const;
    client.json({ type: 'start', callId: 'call-pcm-1', format, from: '+15550001', to: '+15550002' });
    await client.until(() => client.control.length > 0);
    expect(client.control[0]).toEqual({ type: 'started', callId: 'call-pcm-1', format, sessionId: null });
    for (const frame of callerFrames(format)) client.socket.send(frame);
    await client.until(() => client.control.some((f) => f.type === 'mark'));
    expect(client.control.find((f) => f.type === 'mark')).toEqual({ type: 'mark', name: 'reply-1' });
    // 20 ms of 16 kHz PCM16 per frame; speech, not silence, and more than half a second of it.
    expect(client.audio.length).toBeGreaterThan(25);
    for (const frame of client.audio) expect(frame).toHaveLength(640);
    expect(rms(pcm16ToSamples(Buffer.concat(client.audio)))).toBeGreaterThan(300);
    client.json({ type: 'mark', name: 'reply-1' });
    client.json({ type: 'stop' });
    expect((await client.closed).code).toBe(1000);

    // The call's session: the one its turn started.
    const sessions = await world.db.pool.query<{ stream_id: string }>(
      `SELECT DISTINCT stream_id FROM events WHERE type = 'MessageReceived' AND data->>'projectId' = $1`,
      [projectId],
    );
    expect(sessions.rows).toHaveLength(1);
    const log = await world.events(sessions.rows[0]?.stream_id ?? '');
    // The connection's agent starts the call's session.
    expect(log[0]).toMatchObject({
      type: 'SessionStarted',
      data: {
        channel: 'voice_pipeline',
        channelType: 'voice_gateway',
        projectId,
        agentName: 'gateway-agent',
      },
    });
    const heard = log.find((e) => e.type === 'MessageReceived');
    expect(String(heard?.data.text)).toMatch(/\w/);
    expect(heard?.data.channelMetadata).toEqual({
      callId: 'call-pcm-1',
      connectionId: connection.id,
      from: '+15550001',
      to: '+15550002',
    });
    const statuses = log.filter((e) => e.type === 'VoiceCallStatusChanged').map((e) => e.data);
    expect(statuses.map((s) => [s.status, s.callId, s.accountId])).toEqual([
      ['in-progress', 'call-pcm-1', connection.id],
      ['completed', 'call-pcm-1', connection.id],
    ]);
    expect(statuses[1]?.durationSeconds).toEqual(expect.any(Number));
    const metrics = log.filter(
      (e) => e.type === 'TraceEventRecorded' && e.data.name === VOICE_CALL_METRICS_TRACE,
    );
    expect(metrics).toHaveLength(1);
    expect(metrics[0]?.data.attributes).toMatchObject({
      callSid: 'call-pcm-1',
      turnCount: 1,
      mode: 'pipeline',
    });
  });

  it('continues a session the start frame names', async () => {
    const { wsBase } = await gatewayApp();
    const { tenantId, projectId, path } = await newConnection();
    const first = await world.runtime.runTurn({ projectId, tenantId, message: 'hello from the web' });
    const client = await openGateway(`${wsBase}${path}`);
    const format = { encoding: 'mulaw', sampleRate: 8000 } as const;
    client.json({ type: 'start', callId: 'call-continue', token: TOKEN, format, sessionId: first.sessionId });
    for (const frame of callerFrames(format)) client.socket.send(frame);
    await client.until(() => client.control.some((f) => f.type === 'mark'));
    for (const frame of client.audio) expect(frame).toHaveLength(160);
    client.json({ type: 'stop' });
    await client.closed;
    const log = await world.events(sessionStream(first.sessionId));
    expect(log.filter((e) => e.type === 'AgentReplied')).toHaveLength(2);
    expect(log.filter((e) => e.type === 'VoiceCallStatusChanged').map((e) => e.data.status)).toEqual([
      'in-progress',
      'completed',
    ]);
  });
});

describe('a byoc_sip connection: calls from the operator’s SIP gateway', () => {
  it('arrive through the gateway socket at the connection’s advertised path', async () => {
    const { wsBase } = await gatewayApp();
    const { connection, path } = await newConnection('byoc_sip');
    expect(connection).toMatchObject({ channelType: 'voice', provider: 'byoc_sip' });
    expect(connection.settings).toEqual({ sipGateway: { host: 'sip.example.net', port: 5080 } });
    const client = await openGateway(`${wsBase}${path}`);
    const format = { encoding: 'mulaw', sampleRate: 8000 } as const;
    client.json({ type: 'start', callId: 'sip-call-1@sip.example.net', token: TOKEN, format });
    for (const frame of callerFrames(format)) client.socket.send(frame);
    await client.until(() => client.control.some((f) => f.type === 'mark'));
    // 8 kHz µ-law back, 20 ms per frame, speech.
    for (const frame of client.audio) expect(frame).toHaveLength(160);
    expect(rms(decodeMulaw(Buffer.concat(client.audio)))).toBeGreaterThan(300);
    client.json({ type: 'stop' });
    expect((await client.closed).code).toBe(1000);
  });
});

describe('gateway socket refusals (an error frame, then the close code)', () => {
  const refusedWith = async (
    url: string,
    frames: Array<Json | Buffer | string>,
    headers: Record<string, string> = {},
  ) => {
    const client = await openGateway(url, headers);
    for (const frame of frames)
      client.socket.send(Buffer.isBuffer(frame) || typeof frame === 'string' ? frame : JSON.stringify(frame));
    const closed = await client.closed;
    return { close: closed.code, error: client.control.find((f) => f.type === 'error')?.code };
  };
  const start = (more: Json = {}) => ({
    type: 'start',
    callId: 'c-1',
    token: TOKEN,
    format: { encoding: 'mulaw', sampleRate: 8000 },
    ...more,
  });

  it('1008 UNAUTHORIZED: a wrong token, no token, an unknown or inactive connection, the wrong kind', async () => {
    const { wsBase } = await gatewayApp();
    const { path } = await newConnection();
    const inactive = await newConnection('voice_gateway', false);
    const sip = await newConnection('byoc_sip');
    const refused = { close: 1008, error: 'UNAUTHORIZED' };
    expect(await refusedWith(`${wsBase}${path}`, [start({ token: `${TOKEN}x` })])).toEqual(refused);
    expect(await refusedWith(`${wsBase}${path}`, [start({ token: undefined })])).toEqual(refused);
    expect(
      await refusedWith(`${wsBase}${path}`, [start({ token: undefined })], { authorization: 'Bearer nope' }),
    ).toEqual(refused);
    expect(await refusedWith(`${wsBase}/api/v1/channels/voice_gateway/stream/nobody`, [start()])).toEqual(
      refused,
    );
    expect(await refusedWith(`${wsBase}${inactive.path}`, [start()])).toEqual(refused);
    // A byoc_sip connection's identifier on the voice_gateway path (and the other way round).
    const sipId = sip.connection.externalIdentifier;
    expect(await refusedWith(`${wsBase}/api/v1/channels/voice_gateway/stream/${sipId}`, [start()])).toEqual(
      refused,
    );
    const gwId = path.split('/').at(-1);
    expect(await refusedWith(`${wsBase}/api/v1/channels/voice/byoc_sip/stream/${gwId}`, [start()])).toEqual(
      refused,
    );
  });

  it('1008 INVALID_START for a start frame that is not one; 1003 for audio before it; 1007 for text that is not JSON', async () => {
    const { wsBase } = await gatewayApp();
    const { path } = await newConnection();
    const url = `${wsBase}${path}`;
    const invalid = { close: 1008, error: 'INVALID_START' };
    expect(await refusedWith(url, [start({ format: { encoding: 'mulaw', sampleRate: 16000 } })])).toEqual(
      invalid,
    );
    expect(await refusedWith(url, [start({ format: { encoding: 'opus', sampleRate: 48000 } })])).toEqual(
      invalid,
    );
    expect(await refusedWith(url, [start({ callId: 'has space' })])).toEqual(invalid);
    expect(await refusedWith(url, [{ type: 'mark', name: 'x' }])).toEqual(invalid);
    expect(await refusedWith(url, [Buffer.alloc(160)])).toEqual({ close: 1003, error: 'NOT_STARTED' });
    expect(await refusedWith(url, ['not json'])).toEqual({ close: 1007, error: 'NOT_JSON' });
  });

  it('1008 START_TIMEOUT when no start frame comes', async () => {
    const { wsBase } = await gatewayApp(ENV, createInProcessVoiceConcurrencyLimiter(), {
      startTimeoutMs: 200,
    });
    const { path } = await newConnection();
    expect(await refusedWith(`${wsBase}${path}`, [])).toEqual({ close: 1008, error: 'START_TIMEOUT' });
  });

  it('1011 VOICE_NOT_CONFIGURED while voice is disabled or has no speech engines', async () => {
    const { path } = await newConnection();
    for (const env of [{ ...ENV, VOICE_ENABLED: 'false' }, { VOICE_ENABLED: 'true' }]) {
      const { wsBase } = await gatewayApp(env);
      expect(await refusedWith(`${wsBase}${path}`, [start()])).toEqual({
        close: 1011,
        error: 'VOICE_NOT_CONFIGURED',
      });
    }
  });

  it('1013 VOICE_SESSION_LIMIT_REACHED beyond voice.maxConcurrentCalls; the end of a call frees its slot', async () => {
    const limiter = createInProcessVoiceConcurrencyLimiter();
    const { wsBase } = await gatewayApp({ ...ENV, VOICE_MAX_CONCURRENT_CALLS: '1' }, limiter);
    const { tenantId, path } = await newConnection();
    const first = await openGateway(`${wsBase}${path}`);
    first.json(start({ callId: 'held' }));
    await first.until(() => first.control.some((f) => f.type === 'started'));
    expect(await refusedWith(`${wsBase}${path}`, [start({ callId: 'second' })])).toEqual({
      close: 1013,
      error: 'VOICE_SESSION_LIMIT_REACHED',
    });
    first.json({ type: 'stop' });
    await first.closed;
    await first.until(() => true);
    const deadline = Date.now() + 5000;
    while ((await limiter.active(tenantId, 'calls')) !== 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await limiter.active(tenantId, 'calls')).toBe(0);
  });
});
