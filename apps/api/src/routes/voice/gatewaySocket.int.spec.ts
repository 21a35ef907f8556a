import { sessionStream } from '@parley/events';
import {
  decodeMulaw,
  encodeMulaw,
  espeakTextToSpeech,
  type GatewayFormat,
  pcm16ToSamples,
  resample,
  rms,
  VOICE_CALL_METRICS_TRACE,
} from '@parley/voice';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayKit, openGateway, TOKEN } from '../../testing/voice/gatewayKit.js';
import { createVoiceWorld, type VoiceWorld } from '../../testing/voice/voiceWorld.js';

let world: VoiceWorld;
let kit: ReturnType<typeof gatewayKit>;
const gatewayApp = (...args: Parameters<typeof kit.gatewayApp>) => kit.gatewayApp(...args);
const newConnection = (...args: Parameters<typeof kit.newConnection>) => kit.newConnection(...args);
/** The caller's voice (espeak-ng, 22.05 kHz samples). */
let speech: { sampleRate: number; samples: Int16Array };

beforeAll(async () => {
  world = await createVoiceWorld();
  kit = gatewayKit(world);
  speech = await espeakTextToSpeech().synthesize('what is the weather like today');
});
afterAll(async () => {
  await world?.close();
});

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
