import { createHmac } from 'node:crypto';
import {
  type RecordedRequest,
  STAND_IN_ACCESS_TOKEN,
  STAND_IN_CLIENT_SECRET,
  STAND_IN_TENANT_ID,
  type StandInReply,
  startBotConnectorStandIn,
} from '@parley/channels/testing';
import { computeRequestSignature } from '@parley/telephony';
import { expect } from 'vitest';
import { PUBLIC_BASE_URL } from './channelWorld.js';
import { vonageMessagesCase, vonageSmsApiCase } from './vonageCases.js';

/**
 * Test-only: one real channel adapter end to end. Each case builds a webhook request in the
 * platform's documented shape (signed with the connection's secret, or not), answers the
 * platform API calls as the platform does, and says which call carries the reply.
 */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  payload: string;
}

export interface AdapterCase {
  channelType: string;
  /** The provider variant of the connection (sms: vonage), when not the type's default. */
  provider?: string;
  /** The test's name, when the channel type alone does not tell the cases apart. */
  label?: string;
  /** Connection settings beside `apiBaseUrl` (a Vonage connection's API). */
  settings?: Record<string, unknown>;
  identifier: string;
  credentials: Record<string, string>;
  /** The platform API's answer to each call (stand-in). */
  platform(request: RecordedRequest): StandInReply;
  /**
   * Message number `n` of this case as the platform posts it; `signed: false` breaks the
   * signature the way a forger would (a wrong secret), keeping everything else.
   */
  webhook(n: number, signed: boolean): WebhookRequest | Promise<WebhookRequest>;
  /** The platform's stand-in when `platform` is not enough (default: startStandIn(platform)). */
  startPlatform?(): Promise<{ baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> }>;
  /** The platform call that delivered the reply (among everything the stand-in received). */
  replyCall(requests: RecordedRequest[]): RecordedRequest | undefined;
  /** What that call must carry (the platform's request shape: target, auth, the reply's text). */
  expectReply(call: RecordedRequest): void;
  /** A correctly signed request outside the platform's replay window, where it has one. */
  replayed?(n: number): WebhookRequest;
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

// ---------------------------------------------------------------- LINE (Messaging API)
const LINE_BOT = 'U1f2e3d4c5b6a79880123456789abcdef';
const LINE_SECRET = 'line-channel-secret-e2e';
const LINE_USER = 'U4af4980629a1b2c3d4e5f60718293a4b';
const line: AdapterCase = {
  channelType: 'line',
  identifier: LINE_BOT,
  credentials: { channelAccessToken: 'line-e2e-token', channelSecret: LINE_SECRET },
  platform: (r) =>
    r.path === '/v2/bot/chat/loading/start'
      ? { status: 202, body: {} }
      : { status: 200, body: { sentMessages: [{ id: '470000000000000001', quoteToken: 'q' }] } },
  webhook(n, signed) {
    const payload = JSON.stringify({
      destination: LINE_BOT,
      events: [
        {
          type: 'message',
          mode: 'active',
          timestamp: Date.now(),
          source: { type: 'user', userId: LINE_USER },
          webhookEventId: `01HE2E${String(n).padStart(20, '0')}`,
          deliveryContext: { isRedelivery: false },
          replyToken: `reply-token-${n}`,
          message: {
            id: `46800000000000000${n}`,
            type: 'text',
            quoteToken: `q${n}`,
            text: `Hello from LINE ${n}`,
          },
        },
      ],
    });
    const signature = createHmac('sha256', signed ? LINE_SECRET : 'forged')
      .update(payload)
      .digest('base64');
    return {
      url: '/api/v1/channels/line/webhook',
      headers: { 'content-type': json, 'x-line-signature': signature },
      payload,
    };
  },
  replyCall: (requests) => requests.find((r) => r.path === '/v2/bot/message/reply'),
  expectReply(call) {
    expect(call.headers.authorization).toBe('Bearer line-e2e-token');
    expect(call.body).toMatchObject({
      replyToken: expect.stringMatching(/^reply-token-\d+$/),
      messages: [{ type: 'text', text: expect.any(String) }],
    });
  },
  sessionKey: () => LINE_USER,
};

// ---------------------------------------------------------------- Zendesk (Sunshine Conversations)
const ZD_APP = '5ebee0975ac5304b664a12fa';
const ZD_SECRET = 'zendesk-webhook-secret-e2e';
const ZD_CONVERSATION = 'c9d1a6b0e1f2a3b4c5d6e7f8';
const zendeskBody = (n: number) =>
  JSON.stringify({
    app: { id: ZD_APP },
    webhook: { id: '5f3c2c58ec0b0a000c8a2d6d', version: 'v2' },
    events: [
      {
        id: `5f6ce8fac1bca1cdb80b6f8${n}`,
        createdAt: new Date().toISOString(),
        type: 'conversation:message',
        payload: {
          conversation: { id: ZD_CONVERSATION, type: 'personal' },
          message: {
            id: `5f6ce8fac1bca1cdb80b6e0${n}`,
            received: new Date().toISOString(),
            author: { type: 'user', userId: '5963c0d619a30a2e00de36b8', displayName: 'Frodo Baggins' },
            content: { type: 'text', text: `Where is my order? (${n})` },
            source: { type: 'web' },
          },
        },
      },
    ],
  });
const zendeskHeaders = (payload: string, secret: string, at: number) => {
  const timestamp = new Date(at).toISOString();
  return {
    'content-type': json,
    'x-zendesk-webhook-signature-timestamp': timestamp,
    'x-zendesk-webhook-signature': createHmac('sha256', secret)
      .update(timestamp + payload)
      .digest('base64'),
  };
};
const zendesk: AdapterCase = {
  channelType: 'zendesk',
  identifier: ZD_APP,
  credentials: {
    appId: ZD_APP,
    keyId: 'app_5ebee0975ac5304b664a12fb',
    keySecret: 'key-secret-e2e',
    webhookSecret: ZD_SECRET,
  },
  platform: (r) =>
    r.path.endsWith('/activity')
      ? { status: 200, body: {} }
      : { status: 201, body: { messages: [{ id: '5f6ce8fac1bca1cdb80b6fff' }] } },
  webhook(n, signed) {
    const payload = zendeskBody(n);
    return {
      url: '/api/v1/channels/zendesk/webhook',
      headers: zendeskHeaders(payload, signed ? ZD_SECRET : 'forged', Date.now()),
      payload,
    };
  },
  replayed(n) {
    const payload = zendeskBody(n);
    return {
      url: '/api/v1/channels/zendesk/webhook',
      headers: zendeskHeaders(payload, ZD_SECRET, Date.now() - 360_000),
      payload,
    };
  },
  replyCall: (requests) => requests.find((r) => r.path.endsWith('/messages')),
  expectReply(call) {
    expect(call.path).toBe(`/v2/apps/${ZD_APP}/conversations/${ZD_CONVERSATION}/messages`);
    expect(call.headers.authorization).toBe(
      `Basic ${Buffer.from('app_5ebee0975ac5304b664a12fb:key-secret-e2e').toString('base64')}`,
    );
    expect(call.body).toMatchObject({
      author: { type: 'business' },
      content: { type: 'text', text: expect.any(String) },
    });
  },
  sessionKey: () => ZD_CONVERSATION,
};

// ---------------------------------------------------------------- Microsoft Teams (Bot Framework)
const TEAMS_APP = 'c9e8c047-2a74-40a2-b28a-b162d5f5327c';
const TEAMS_SERVICE_URL = 'https://smba.trafficmanager.net/amer/';
const TEAMS_CONVERSATION = 'a:1Xb8ZkJmX2-personal-chat-e2e';
let teams: Awaited<ReturnType<typeof startBotConnectorStandIn>> | undefined;
/**
 * The Bot Framework stand-in (keys, login, Bot Connector) is started once: the Teams adapter must
 * be created knowing its key URL (`createChannelAdapters({ openIdMetadataUrl })`).
 */
export async function teamsStandIn() {
  teams ??= await startBotConnectorStandIn();
  return teams;
}
const msteams: AdapterCase = {
  channelType: 'msteams',
  identifier: TEAMS_APP,
  credentials: { appId: TEAMS_APP, clientSecret: STAND_IN_CLIENT_SECRET, tenantId: STAND_IN_TENANT_ID },
  platform: () => ({ status: 404, body: {} }),
  startPlatform: teamsStandIn,
  async webhook(n, signed) {
    const issuer = (await teamsStandIn()).issuer;
    // A forger signs with a key of its own (not in the published set).
    const token = await issuer.sign({
      audience: TEAMS_APP,
      serviceUrl: TEAMS_SERVICE_URL,
      foreignKey: !signed,
    });
    const payload = JSON.stringify({
      type: 'message',
      id: `14859834085${String(n).padStart(2, '0')}`,
      timestamp: new Date().toISOString(),
      serviceUrl: TEAMS_SERVICE_URL,
      channelId: 'msteams',
      from: {
        id: '29:1XJKJMvc5GBtc2JwZq0oj8tHZmzrQgFmB39ATiQWA85g',
        name: 'Megan Bowen',
        aadObjectId: '7faf3c6a-9d4b-4a87-8a3c-1d3e1c1e2f11',
      },
      conversation: { conversationType: 'personal', tenantId: STAND_IN_TENANT_ID, id: TEAMS_CONVERSATION },
      recipient: { id: `28:${TEAMS_APP}`, name: 'Parley' },
      textFormat: 'plain',
      locale: 'en-US',
      text: `Hello from Teams ${n}`,
      channelData: { tenant: { id: STAND_IN_TENANT_ID } },
    });
    return {
      url: '/api/v1/channels/msteams/webhook',
      headers: { 'content-type': json, authorization: `Bearer ${token}` },
      payload,
    };
  },
  replyCall: (requests) =>
    requests.find(
      (r) => r.path.startsWith('/v3/conversations/') && (r.body as { type?: string })?.type === 'message',
    ),
  expectReply(call) {
    expect(call.path).toMatch(
      new RegExp(`^/v3/conversations/${encodeURIComponent(TEAMS_CONVERSATION)}/activities/14859834085\\d+$`),
    );
    expect(call.headers.authorization).toBe(`Bearer ${STAND_IN_ACCESS_TOKEN}`);
    expect(call.body).toMatchObject({ type: 'message', text: expect.any(String), textFormat: 'markdown' });
  },
  sessionKey: () => TEAMS_CONVERSATION,
};

export const ADAPTER_CASES: readonly AdapterCase[] = [
  msteams,
  whatsapp,
  messenger,
  instagram,
  telegram,
  slack,
  sms,
  vonageMessagesCase('447700900100'),
  vonageSmsApiCase('447700900200'),
  line,
  zendesk,
];
