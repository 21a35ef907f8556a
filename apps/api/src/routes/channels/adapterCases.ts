import { createHmac } from 'node:crypto';
import type { RecordedRequest, StandInReply } from '@parley/channels/testing';
import { computeRequestSignature } from '@parley/telephony';
import { expect } from 'vitest';
import { PUBLIC_BASE_URL } from './channelWorld.js';

/**
 * Test-only: one real channel adapter end to end. Each case builds a webhook request in the
 * platform's documented shape (signed with the connection's secret, or not), answers the
 * platform API calls as the platform does, and says which call carries the reply.
 */
export interface AdapterCase {
  channelType: string;
  identifier: string;
  credentials: Record<string, string>;
  /** The platform API's answer to each call (stand-in). */
  platform(request: RecordedRequest): StandInReply;
  /**
   * Message number `n` of this case as the platform posts it; `signed: false` breaks the
   * signature the way a forger would (a wrong secret), keeping everything else.
   */
  webhook(n: number, signed: boolean): { url: string; headers: Record<string, string>; payload: string };
  /** The platform call that delivered the reply (among everything the stand-in received). */
  replyCall(requests: RecordedRequest[]): RecordedRequest | undefined;
  /** What that call must carry (the platform's request shape: target, auth, the reply's text). */
  expectReply(call: RecordedRequest): void;
  /** A correctly signed request outside the platform's replay window, where it has one. */
  replayed?(n: number): { url: string; headers: Record<string, string>; payload: string };
  /** The conversation key message `n` maps to. */
  sessionKey(n: number): string;
}

const json = 'application/json';
const hmacHex = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');
const bodyOf = (call: RecordedRequest) => call.body as Record<string, unknown>;

// ---------------------------------------------------------------- WhatsApp (Cloud API)
const WA_PHONE_ID = '106540352242922';
const WA_SECRET = 'wa-app-secret';
const whatsapp: AdapterCase = {
  channelType: 'whatsapp',
  identifier: WA_PHONE_ID,
  credentials: { accessToken: 'EAAG-wa-token', appSecret: WA_SECRET, verifyToken: 'wa-verify' },
  platform: () => ({
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [{ wa_id: '16505551234' }],
      messages: [{ id: 'wamid.OUT' }],
    },
  }),
  webhook(n, signed) {
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: WA_PHONE_ID },
                contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
                messages: [
                  {
                    from: '16505551234',
                    id: `wamid.IN-${n}`,
                    timestamp: '1749416383',
                    type: 'text',
                    text: { body: `Does it come in another color? (${n})` },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    return {
      url: '/api/v1/channels/whatsapp/webhook',
      headers: {
        'content-type': json,
        'x-hub-signature-256': `sha256=${hmacHex(signed ? WA_SECRET : 'forged', payload)}`,
      },
      payload,
    };
  },
  replyCall: (requests) => requests.find((r) => bodyOf(r).type === 'text'),
  expectReply(call) {
    expect(call.path).toBe(`/${WA_PHONE_ID}/messages`);
    expect(call.headers.authorization).toBe('Bearer EAAG-wa-token');
    expect(call.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: '16505551234',
      type: 'text',
      text: { body: expect.any(String) },
    });
  },
  sessionKey: () => '16505551234',
};

// ---------------------------------------------------------------- Messenger and Instagram (Meta)
const META_SECRET = 'meta-app-secret';
const metaWebhook =
  (object: 'page' | 'instagram', accountId: string, userId: string, channelType: string) =>
  (n: number, signed: boolean) => {
    const payload = JSON.stringify({
      object,
      entry: [
        {
          id: accountId,
          time: 1_763_719_200_000,
          messaging: [
            {
              sender: { id: userId },
              recipient: { id: accountId },
              timestamp: 1_763_719_200_000 + n,
              message: { mid: `m_${channelType}-${n}`, text: `Hello from ${channelType} ${n}` },
            },
          ],
        },
      ],
    });
    return {
      url: `/api/v1/channels/${channelType}/webhook`,
      headers: {
        'content-type': json,
        'x-hub-signature-256': `sha256=${hmacHex(signed ? META_SECRET : 'forged', payload)}`,
      },
      payload,
    };
  };
const PAGE_ID = '112233445566778';
const PSID = '6789012345678901';
const messenger: AdapterCase = {
  channelType: 'messenger',
  identifier: PAGE_ID,
  credentials: { accessToken: 'EAAG-page-token', appSecret: META_SECRET, verifyToken: 'fb-verify' },
  platform: () => ({ status: 200, body: { recipient_id: PSID, message_id: 'm_OUT' } }),
  webhook: metaWebhook('page', PAGE_ID, PSID, 'messenger'),
  replyCall: (requests) => requests.find((r) => bodyOf(r).message !== undefined),
  expectReply(call) {
    expect(call.path).toBe(`/${PAGE_ID}/messages`);
    expect(call.headers.authorization).toBe('Bearer EAAG-page-token');
    expect(call.body).toMatchObject({
      recipient: { id: PSID },
      messaging_type: 'RESPONSE',
      message: { text: expect.any(String) },
    });
  },
  sessionKey: () => PSID,
};
const IG_ID = '17841400000000000';
const IGSID = '5432109876543210';
const instagram: AdapterCase = {
  channelType: 'instagram',
  identifier: IG_ID,
  credentials: { accessToken: 'EAAG-ig-token', appSecret: META_SECRET, verifyToken: 'ig-verify' },
  platform: () => ({ status: 200, body: { recipient_id: IGSID, message_id: 'aWdf_OUT' } }),
  webhook: metaWebhook('instagram', IG_ID, IGSID, 'instagram'),
  replyCall: (requests) => requests.find((r) => bodyOf(r).message !== undefined),
  expectReply(call) {
    expect(call.path).toBe('/me/messages');
    expect(call.headers.authorization).toBe('Bearer EAAG-ig-token');
    expect(call.body).toMatchObject({ recipient: { id: IGSID }, message: { text: expect.any(String) } });
  },
  sessionKey: () => IGSID,
};

// ---------------------------------------------------------------- Telegram (Bot API)
const BOT_ID = '7000001';
const BOT_TOKEN = `${BOT_ID}:AAE-e2e-token`;
const telegram: AdapterCase = {
  channelType: 'telegram',
  identifier: BOT_ID,
  credentials: { botToken: BOT_TOKEN, webhookSecret: 'tg-secret-e2e' },
  platform: (r) => ({
    status: 200,
    body: r.path.endsWith('/sendMessage')
      ? { ok: true, result: { message_id: 900, chat: { id: 555001 } } }
      : { ok: true, result: true },
  }),
  webhook(n, signed) {
    return {
      url: `/api/v1/channels/telegram/webhook/${BOT_ID}`,
      headers: {
        'content-type': json,
        'x-telegram-bot-api-secret-token': signed ? 'tg-secret-e2e' : 'forged',
      },
      payload: JSON.stringify({
        update_id: 900000 + n,
        message: {
          message_id: n,
          date: 1_790_000_000,
          chat: { id: 555001, type: 'private', first_name: 'Ada' },
          from: { id: 555001, is_bot: false, first_name: 'Ada' },
          text: `Hi from Telegram ${n}`,
        },
      }),
    };
  },
  replyCall: (requests) => requests.find((r) => r.path.endsWith('/sendMessage')),
  expectReply(call) {
    expect(call.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(call.body).toMatchObject({ chat_id: 555001, text: expect.any(String) });
  },
  sessionKey: () => '555001',
};

// ---------------------------------------------------------------- Slack (Events API)
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const slackSigned = (payload: string, secret: string, at: number) => {
  const ts = String(Math.floor(at / 1000));
  return {
    'content-type': json,
    'x-slack-request-timestamp': ts,
    'x-slack-signature': `v0=${hmacHex(secret, `v0:${ts}:${payload}`)}`,
  };
};
const slackEvent = (n: number) =>
  JSON.stringify({
    token: 'deprecated-verification-token',
    team_id: 'T061EG9R6',
    api_app_id: 'A0KRD7HC3',
    event: {
      type: 'message',
      channel: 'D024BE91L',
      channel_type: 'im',
      user: 'U2147483697',
      text: `Hello from Slack ${n}`,
      ts: `1763719200.00${String(n).padStart(4, '0')}`,
      event_ts: `1763719200.00${String(n).padStart(4, '0')}`,
    },
    type: 'event_callback',
    event_id: `Ev0E2E${n}`,
    event_time: 1_763_719_200,
  });
const slack: AdapterCase = {
  channelType: 'slack',
  identifier: 'T061EG9R6:A0KRD7HC3',
  credentials: { botToken: 'xoxb-e2e', signingSecret: SLACK_SECRET },
  platform: () => ({ status: 200, body: { ok: true, channel: 'D024BE91L', ts: '1763719300.000100' } }),
  webhook(n, signed) {
    const payload = slackEvent(n);
    return {
      url: '/api/v1/channels/slack/webhook',
      headers: slackSigned(payload, signed ? SLACK_SECRET : 'forged', Date.now()),
      payload,
    };
  },
  replayed(n) {
    const payload = slackEvent(n);
    // Signed with the right secret, six minutes ago: outside Slack's five-minute window.
    return {
      url: '/api/v1/channels/slack/webhook',
      headers: slackSigned(payload, SLACK_SECRET, Date.now() - 360_000),
      payload,
    };
  },
  replyCall: (requests) => requests.find((r) => r.path === '/chat.postMessage'),
  expectReply(call) {
    expect(call.headers.authorization).toBe('Bearer xoxb-e2e');
    expect(call.body).toMatchObject({ channel: 'D024BE91L', text: expect.any(String) });
  },
  sessionKey: () => 'D024BE91L',
};

// ---------------------------------------------------------------- SMS (Twilio-style provider)
const SMS_NUMBER = '+15017122661';
const SMS_SID = 'ACe2e00000000000000000000000000000';
const SMS_TOKEN = 'e2e45abcde12345abcde12345abcde12';
const sms: AdapterCase = {
  channelType: 'sms',
  identifier: SMS_NUMBER,
  credentials: { accountSid: SMS_SID, authToken: SMS_TOKEN },
  platform: () => ({ status: 201, body: { sid: 'SMe2e', status: 'queued' } }),
  webhook(n, signed) {
    const path = `/api/v1/channels/sms/webhook/${encodeURIComponent(SMS_NUMBER)}`;
    const params: [string, string][] = [
      ['ToCountry', 'US'],
      ['SmsMessageSid', `SMin${n}`],
      ['NumMedia', '0'],
      ['SmsSid', `SMin${n}`],
      ['Body', `Hello by SMS ${n}`],
      ['To', SMS_NUMBER],
      ['NumSegments', '1'],
      ['MessageSid', `SMin${n}`],
      ['AccountSid', SMS_SID],
      ['From', '+14155238886'],
      ['ApiVersion', '2010-04-01'],
    ];
    const signature = computeRequestSignature(
      signed ? SMS_TOKEN : 'forged',
      `${PUBLIC_BASE_URL}${path}`,
      params,
    );
    return {
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      payload: new URLSearchParams(params).toString(),
    };
  },
  replyCall: (requests) => requests.find((r) => r.path.endsWith('/Messages.json')),
  expectReply(call) {
    expect(call.path).toBe(`/2010-04-01/Accounts/${SMS_SID}/Messages.json`);
    expect(call.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SMS_SID}:${SMS_TOKEN}`).toString('base64')}`,
    );
    expect(call.body).toMatchObject({ To: '+14155238886', From: SMS_NUMBER, Body: expect.any(String) });
  },
  sessionKey: () => '+14155238886',
};

export const ADAPTER_CASES: readonly AdapterCase[] = [whatsapp, messenger, instagram, telegram, slack, sms];
