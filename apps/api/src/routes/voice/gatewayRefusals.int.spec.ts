import { createInProcessVoiceConcurrencyLimiter } from '@parley/voice';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV, gatewayKit, type Json, openGateway, TOKEN } from '../../testing/voice/gatewayKit.js';
import { createVoiceWorld, type VoiceWorld } from '../../testing/voice/voiceWorld.js';

let world: VoiceWorld;
let kit: ReturnType<typeof gatewayKit>;
const gatewayApp = (...args: Parameters<typeof kit.gatewayApp>) => kit.gatewayApp(...args);
const newConnection = (...args: Parameters<typeof kit.newConnection>) => kit.newConnection(...args);

beforeAll(async () => {
  world = await createVoiceWorld();
  kit = gatewayKit(world);
});
afterAll(async () => {
  await world?.close();
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
