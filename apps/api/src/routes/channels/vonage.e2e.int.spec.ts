import { createChannelAdapters } from '@parley/channels';
import {
  type RecordedRequest,
  signSmsApi,
  smsApiInbound,
  smsApiReceipt,
  startStandIn,
  vonageMessagesInbound,
  vonageMessagesStatus,
  vonageWebhookToken,
} from '@parley/channels/testing';
import { computeRequestSignature } from '@parley/telephony';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChannelWorld,
  createChannelWorld,
  PUBLIC_BASE_URL,
} from '../../testing/channels/channelWorld.js';
import {
  messagesApiAnswer,
  VONAGE_APP_ID,
  VONAGE_PATH,
  VONAGE_PRIVATE_KEY,
  VONAGE_SECRET,
} from '../../testing/channels/vonageCases.js';

/**
 * SMS through Vonage beyond the shared adapter cases: delivery receipts of both APIs recorded once
 * on the reply's session, and a connection reached only through its own provider's route.
 */
const USER = '447700900001';
let world: ChannelWorld;
let platform: { baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> };

beforeAll(async () => {
  world = await createChannelWorld({ adapters: createChannelAdapters() });
  platform = await startStandIn((request) =>
    request.path === '/v1/messages'
      ? messagesApiAnswer()
      : {
          status: 200,
          body: {
            'message-count': '1',
            messages: [{ to: USER, 'message-id': `0D00000000${platform.requests.length}`, status: '0' }],
          },
        },
  );
}, 60_000);
afterAll(async () => {
  await platform?.close();
  await world?.close();
});

const postJson = (body: object, secret = VONAGE_SECRET) => {
  const payload = JSON.stringify(body);
  return world.app.inject({
    method: 'POST',
    url: VONAGE_PATH,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${vonageWebhookToken(secret, payload)}`,
    },
    payload,
  });
};
const postForm = (params: Record<string, string>) =>
  world.app.inject({
    method: 'POST',
    url: VONAGE_PATH,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(params).toString(),
  });

/** The reply the agent sent in a connection's conversation with USER, and its session. */
async function replyOf(connectionId: string) {
  const sessionId = (await world.sessionOf(connectionId, USER)) ?? '';
  const events = await world.events(sessionId);
  const sent = events.find((e) => e.type === 'ChannelMessageSent')?.data as
    | { messageId: string; externalMessageId: string }
    | undefined;
  return {
    sessionId,
    events,
    messageId: sent?.messageId ?? '',
    externalMessageId: sent?.externalMessageId ?? '',
  };
}
const reports = async (sessionId: string) =>
  (await world.events(sessionId)).filter((e) => e.type === 'ChannelDeliveryReported').map((e) => e.data);

describe('Vonage Messages API: status callbacks', () => {
  const NUMBER = '447700900300';
  let connectionId: string;
  beforeAll(async () => {
    connectionId = (
      await world.connect({
        channelType: 'sms',
        provider: 'vonage',
        externalIdentifier: `+${NUMBER}`,
        credentials: {
          signatureSecret: VONAGE_SECRET,
          applicationId: VONAGE_APP_ID,
          privateKey: VONAGE_PRIVATE_KEY,
        },
        settings: { apiBaseUrl: platform.baseUrl },
      })
    ).id;
  });

  it('refuses a token issued outside the window with the envelope of a forged one', async () => {
    const payload = JSON.stringify(vonageMessagesInbound(90, NUMBER, USER));
    const post = (token: string) =>
      world.app.inject({
        method: 'POST',
        url: VONAGE_PATH,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        payload,
      });
    const forged = await post(vonageWebhookToken('forged-secret', payload));
    expect(forged.statusCode).toBe(401);
    const stale = await post(
      vonageWebhookToken(VONAGE_SECRET, payload, { iat: Math.floor(Date.now() / 1000) - 400 }),
    );
    expect(stale.statusCode).toBe(401);
    expect(stale.json()).toEqual(forged.json());
    expect(stale.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });

  it('records each status of a sent reply once, on its session; a forged one is refused', async () => {
    expect((await postJson(vonageMessagesInbound(1, NUMBER, USER))).json()).toEqual({
      success: true,
      data: { accepted: 1, duplicates: 0 },
    });
    expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
    const reply = await replyOf(connectionId);
    expect(reply.externalMessageId).toMatch(/^bbbbbbbb-/);

    const delivered = vonageMessagesStatus(reply.externalMessageId, 'delivered', USER, NUMBER);
    for (let i = 0; i < 2; i++) {
      const answer = await postJson(delivered);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({ success: true, data: { accepted: 0, duplicates: 0, receipts: 1 } });
    }
    const forged = await postJson(
      vonageMessagesStatus(reply.externalMessageId, 'read', USER, NUMBER),
      'forged',
    );
    expect(forged.statusCode).toBe(401);
    await postJson(vonageMessagesStatus(reply.externalMessageId, 'rejected', USER, NUMBER));
    expect(await reports(reply.sessionId)).toEqual([
      {
        sessionId: reply.sessionId,
        projectId: expect.any(String),
        connectionId,
        channelType: 'sms',
        provider: 'vonage',
        messageId: reply.messageId,
        externalMessageId: reply.externalMessageId,
        status: 'delivered',
        outcome: 'delivered',
        reportedAt: '2025-02-03T12:15:02.010Z',
      },
      expect.objectContaining({ status: 'rejected', outcome: 'failed', errorCode: '1000' }),
    ]);
    expect(await world.drain()).toEqual({ inbound: 0, sent: 0, failed: 0 });
  });

  it('answers a status of a message it did not send with receipts 0, recording nothing', async () => {
    const answer = await postJson(
      vonageMessagesStatus('cccccccc-0000-4000-8000-000000000000', 'delivered', USER, NUMBER),
    );
    expect(answer.json()).toEqual({ success: true, data: { accepted: 0, duplicates: 0, receipts: 0 } });
  });
});

describe('Vonage SMS API: delivery receipts (md5hash, the default method)', () => {
  const NUMBER = '447700900400';
  let connectionId: string;
  beforeAll(async () => {
    connectionId = (
      await world.connect({
        channelType: 'sms',
        provider: 'vonage',
        externalIdentifier: NUMBER,
        credentials: { signatureSecret: VONAGE_SECRET, apiKey: 'abcd1234', apiSecret: 'abcdef0123456789' },
        settings: { apiBaseUrl: platform.baseUrl, vonageApi: 'sms' },
      })
    ).id;
  });

  it('records a receipt of a sent part once; refuses a wrongly signed one', async () => {
    const inbound = await postForm(signSmsApi(smsApiInbound(1, NUMBER, USER), VONAGE_SECRET, 'md5hash'));
    expect(inbound.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
    expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
    const reply = await replyOf(connectionId);
    const receipt = signSmsApi(
      smsApiReceipt(reply.externalMessageId, 'delivered', NUMBER, USER),
      VONAGE_SECRET,
      'md5hash',
    );
    expect((await postForm(receipt)).json()).toEqual({
      success: true,
      data: { accepted: 0, duplicates: 0, receipts: 1 },
    });
    expect((await postForm(receipt)).json()).toMatchObject({ data: { receipts: 1 } });
    const wrong = signSmsApi(
      smsApiReceipt(reply.externalMessageId, 'failed', NUMBER, USER),
      VONAGE_SECRET,
      'sha256',
    );
    const forged = await postForm(wrong);
    expect(forged.statusCode).toBe(401);
    // Signed right but outside the window (VONAGE_WEBHOOK_MAX_AGE_SECONDS, 300 s): the same refusal.
    const stale = await postForm(
      signSmsApi(
        smsApiReceipt(reply.externalMessageId, 'failed', NUMBER, USER),
        VONAGE_SECRET,
        'md5hash',
        new Date(Date.now() - 301_000),
      ),
    );
    expect(stale.statusCode).toBe(401);
    expect(stale.json()).toEqual(forged.json());
    expect(await reports(reply.sessionId)).toEqual([
      expect.objectContaining({
        messageId: reply.messageId,
        externalMessageId: reply.externalMessageId,
        status: 'delivered',
        outcome: 'delivered',
        reportedAt: '2020-01-01T14:00:00.000Z',
      }),
    ]);
  });
});

describe('the provider route serves only its provider’s connections', () => {
  const TWILIO_NUMBER = '+15017122661';
  const VONAGE_NUMBER = '447700900500';
  beforeAll(async () => {
    await world.connect({
      channelType: 'sms',
      externalIdentifier: TWILIO_NUMBER,
      credentials: { accountSid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', authToken: 'twilio-token' },
    });
    await world.connect({
      channelType: 'sms',
      provider: 'vonage',
      externalIdentifier: VONAGE_NUMBER,
      credentials: {
        signatureSecret: VONAGE_SECRET,
        applicationId: VONAGE_APP_ID,
        privateKey: VONAGE_PRIVATE_KEY,
      },
    });
  });

  it('404 for a Vonage-signed webhook to a Twilio connection’s number, and for a Twilio-signed one to a Vonage number', async () => {
    const toTwilio = await postJson(vonageMessagesInbound(9, TWILIO_NUMBER.slice(1), USER));
    expect(toTwilio.statusCode).toBe(404);
    const path = `/api/v1/channels/sms/webhook/${encodeURIComponent(VONAGE_NUMBER)}`;
    const params: [string, string][] = [
      ['MessageSid', 'SMx1'],
      ['From', '+447700900001'],
      ['To', VONAGE_NUMBER],
      ['Body', 'hi'],
    ];
    const toVonage = await world.app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': computeRequestSignature('twilio-token', `${PUBLIC_BASE_URL}${path}`, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
    expect(toVonage.statusCode).toBe(404);
  });

  it('400 when the body names no number, 404 for an unknown provider, 404 for a GET', async () => {
    const noNumber = await postJson({ hello: 'world' });
    expect(noNumber.statusCode).toBe(400);
    expect(noNumber.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const unknown = await world.app.inject({
      method: 'POST',
      url: '/api/v1/channels/sms/nope/webhook',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(unknown.statusCode).toBe(404);
    expect((await world.app.inject({ method: 'GET', url: VONAGE_PATH })).statusCode).toBe(404);
  });

  it('413 for a body over 1 MB', async () => {
    const big = await world.app.inject({
      method: 'POST',
      url: VONAGE_PATH,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        ...vonageMessagesInbound(11, VONAGE_NUMBER, USER),
        text: 'x'.repeat(1_100_000),
      }),
    });
    expect(big.statusCode).toBe(413);
  });

  it('401 for an unsigned Vonage webhook', async () => {
    const unsigned = await world.app.inject({
      method: 'POST',
      url: VONAGE_PATH,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(vonageMessagesInbound(10, VONAGE_NUMBER, USER)),
    });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  });
});
