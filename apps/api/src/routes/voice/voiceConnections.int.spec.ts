import type { ChannelConnection } from '@parley/channels';
import { voiceCallStream } from '@parley/events';
import { createAgentStore } from '@parley/runtime';
import { callbackParams, computeRequestSignature } from '@parley/telephony';
import {
  espeakTextToSpeech,
  FRAME_SAMPLES,
  MULAW_SILENCE,
  mediaStreamToken,
  toTelephonyFrames,
  type VoiceConcurrencyLimiter,
} from '@parley/voice';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ChannelWorld, PUBLIC_BASE_URL } from '../../testing/channels/channelWorld.js';
import { startVoiceChannelWorld, VOICE_ENV } from '../../testing/voice/voiceChannelWorld.js';

let world: ChannelWorld;
let limiter: VoiceConcurrencyLimiter;
let wsBase: string;
let n = 0;
/** The caller's voice (espeak-ng) with silence after it: 8 kHz µ-law frames. */
let caller: Uint8Array[];

beforeAll(async () => {
  const speech = toTelephonyFrames(await espeakTextToSpeech().synthesize('what is the weather like today'));
  caller = [
    ...speech,
    ...Array.from({ length: 60 }, () => new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE)),
  ];
  ({ world, limiter, wsBase } = await startVoiceChannelWorld());
});
afterAll(async () => {
  await world?.close();
});

async function twilioConnection(
  active = true,
  agentName?: string,
): Promise<ChannelConnection & { authToken: string }> {
  n += 1;
  const authToken = `voice-connection-token-${n}`;
  const connection = await world.connect({
    channelType: 'voice',
    externalIdentifier: `+1555000${1000 + n}`,
    credentials: { accountSid: `ACvoice${process.pid}x${n}`, authToken },
    ...(agentName === undefined ? {} : { agentName }),
  });
  if (!active) await world.connections.update(connection.projectId, connection.id, { active: false });
  return { ...connection, authToken };
}

/** A Twilio-signed form POST to the connection's advertised path (plus `query`). */
function signedCall(
  app: FastifyInstance,
  connection: { webhookPath: string | null; authToken: string; credentialNames: string[] },
  fields: Record<string, string>,
  options: { query?: string; authToken?: string } = {},
) {
  const path = `${connection.webhookPath}${options.query ?? ''}`;
  const form = new URLSearchParams(fields);
  const signature = computeRequestSignature(
    options.authToken ?? connection.authToken,
    `${PUBLIC_BASE_URL}${path}`,
    callbackParams(form),
  );
  return app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: form.toString(),
  });
}

const errorOf = (res: { statusCode: number; json(): unknown }) => ({
  status: res.statusCode,
  code: (res.json() as { error?: { code?: string } }).error?.code,
});

describe('POST /api/v1/channels/voice/webhook/{identifier}', () => {
  it('answers a Twilio-signed call with TwiML connecting its media stream, which the gateway accepts', async () => {
    const connection = await twilioConnection(true, 'phone-agent');
    await createAgentStore(world.db.pool).create(connection.projectId, { name: 'phone-agent' });
    expect(connection.webhookPath).toBe(
      `/api/v1/channels/voice/webhook/${encodeURIComponent(connection.externalIdentifier)}`,
    );
    const accountSid = `ACvoice${process.pid}x${n}`;
    const callSid = `CAconn${n}`;
    const res = await signedCall(world.app, connection, {
      AccountSid: accountSid,
      CallSid: callSid,
      CallStatus: 'ringing',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    const streamToken = mediaStreamToken(connection.authToken, { callSid, projectId: connection.projectId });
    expect(res.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>' +
        `<Stream url="wss://parley.example/api/v1/voice/media/${callSid}">` +
        `<Parameter name="connectionId" value="${connection.id}"/>` +
        `<Parameter name="projectId" value="${connection.projectId}"/>` +
        `<Parameter name="streamToken" value="${streamToken}"/>` +
        '</Stream></Connect></Response>',
    );
    expect(await limiter.active(connection.tenantId, 'calls')).toBe(1);
    // The provider opens the stream with those parameters: accepted (no 1008), then stopped.
    const socket = new WebSocket(`${wsBase}/api/v1/voice/media/${callSid}`);
    await new Promise((resolve) => socket.on('open', resolve));
    const start = {
      streamSid: 'MZconn',
      accountSid,
      callSid,
      customParameters: { connectionId: connection.id, projectId: connection.projectId, streamToken },
    };
    const marks: string[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: string; mark?: { name: string } };
      if (message.event === 'mark') marks.push(message.mark?.name ?? '');
    });
    const closed = new Promise<number>((resolve) => socket.on('close', (c) => resolve(c)));
    socket.send(JSON.stringify({ event: 'start', streamSid: 'MZconn', start }));
    // The caller speaks: the connection's agent answers in a new session.
    for (const frame of caller)
      socket.send(
        JSON.stringify({
          event: 'media',
          streamSid: 'MZconn',
          media: { payload: Buffer.from(frame).toString('base64') },
        }),
      );
    const deadline = Date.now() + 40_000;
    while (marks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(marks).toEqual(['reply-1']);
    socket.send(JSON.stringify({ event: 'stop', streamSid: 'MZconn' }));
    expect(await closed).toBe(1000);
    expect(await limiter.active(connection.tenantId, 'calls')).toBe(0);
    const { rows } = await world.db.pool.query<{ data: { agentName: string; channel: string } }>(
      `SELECT data FROM events WHERE type = 'SessionStarted' AND data->>'projectId' = $1`,
      [connection.projectId],
    );
    expect(rows.map((r) => [r.data.agentName, r.data.channel])).toEqual([['phone-agent', 'voice_pipeline']]);
  });

  it('with ?event=status records the call status, in the call stream without a session', async () => {
    const connection = await twilioConnection();
    const accountSid = `ACvoice${process.pid}x${n}`;
    const fields = {
      AccountSid: accountSid,
      CallSid: `CAstat${n}`,
      CallStatus: 'completed',
      CallDuration: '7',
    };
    const res = await signedCall(world.app, connection, fields, { query: '?event=status' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { callId: `CAstat${n}`, status: 'completed', eventId: expect.any(String), sessionId: null },
    });
    const log = await world.store.readStream(voiceCallStream(`CAstat${n}`));
    const events = [];
    for await (const e of log) events.push(e);
    expect(events.map((e) => [e.type, e.data.status, e.data.durationSeconds])).toEqual([
      ['VoiceCallStatusChanged', 'completed', 7],
    ]);
    const bad = await signedCall(
      world.app,
      connection,
      { ...fields, CallStatus: 'exploded' },
      { query: '?event=status' },
    );
    expect(errorOf(bad)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('404 NOT_FOUND for an unknown identifier, an inactive connection or a byoc_sip one', async () => {
    const inactive = await twilioConnection(false);
    const sip = await world.connect({
      channelType: 'voice',
      provider: 'byoc_sip',
      externalIdentifier: `sip-trunk-${n}`,
      credentials: { inboundAuthToken: 'sip-token' },
      settings: { sipGateway: { host: '10.0.0.5' } },
    });
    for (const path of [
      '/api/v1/channels/voice/webhook/nobody',
      inactive.webhookPath,
      `/api/v1/channels/voice/webhook/${sip.externalIdentifier}`,
    ]) {
      const res = await signedCall(
        world.app,
        { ...inactive, webhookPath: path },
        { AccountSid: 'AC1', CallSid: 'CA1' },
      );
      expect(errorOf(res)).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
  });

  it('401 UNAUTHORIZED for a bad signature or another account', async () => {
    const connection = await twilioConnection();
    const accountSid = `ACvoice${process.pid}x${n}`;
    const wrongToken = await signedCall(
      world.app,
      connection,
      { AccountSid: accountSid, CallSid: 'CA1' },
      { authToken: 'nope' },
    );
    expect(errorOf(wrongToken)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    const otherAccount = await signedCall(world.app, connection, { AccountSid: 'ACother', CallSid: 'CA1' });
    expect(errorOf(otherAccount)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('429 VOICE_SESSION_LIMIT_REACHED beyond the calls and 503 VOICE_NOT_CONFIGURED while voice is disabled', async () => {
    const limited = (await startVoiceChannelWorld({ ...VOICE_ENV, VOICE_MAX_CONCURRENT_CALLS: '1' })).world;
    const disabled = (await startVoiceChannelWorld({ ...VOICE_ENV, VOICE_ENABLED: 'false' })).world;
    try {
      for (const w of [limited, disabled]) {
        await w.connect({
          channelType: 'voice',
          externalIdentifier: '+15550009999',
          credentials: { accountSid: 'ACx', authToken: 'tok' },
        });
      }
      const target = {
        webhookPath: '/api/v1/channels/voice/webhook/%2B15550009999',
        authToken: 'tok',
        credentialNames: [],
      };
      expect(
        (await signedCall(limited.app, target, { AccountSid: 'ACx', CallSid: 'CAlim1' })).statusCode,
      ).toBe(200);
      const refused = await signedCall(limited.app, target, { AccountSid: 'ACx', CallSid: 'CAlim2' });
      expect(errorOf(refused)).toEqual({ status: 429, code: 'VOICE_SESSION_LIMIT_REACHED' });
      expect(refused.headers['retry-after']).toBeDefined();
      const off = await signedCall(disabled.app, target, { AccountSid: 'ACx', CallSid: 'CAoff' });
      expect(errorOf(off)).toEqual({ status: 503, code: 'VOICE_NOT_CONFIGURED' });
    } finally {
      await limited.close();
      await disabled.close();
    }
  });
});
