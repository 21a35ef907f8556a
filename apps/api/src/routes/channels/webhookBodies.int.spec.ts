import { createHmac } from 'node:crypto';
import { createChannelAdapters, REPLACED_TEXT_METADATA_KEY } from '@parley/channels';
import { computeRequestSignature } from '@parley/telephony';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChannelWorld,
  createChannelWorld,
  PUBLIC_BASE_URL,
} from '../../testing/channels/channelWorld.js';

/**
 * What reaches a webhook that is signed but not what the platform sends (spec 001 §7: a clear 4xx
 * in the platform envelope, nothing processed), and text PostgreSQL cannot store in a signed
 * message (kept with U+FFFD and recorded: the platform would retry a refusal forever).
 */
let world: ChannelWorld;
beforeAll(async () => {
  world = await createChannelWorld({ adapters: createChannelAdapters() });
}, 60_000);
afterAll(() => world?.close());

const hmac = (secret: string, data: string, encoding: 'hex' | 'base64') =>
  createHmac('sha256', secret).update(data).digest(encoding);

interface Platform {
  channelType: string;
  identifier: string;
  credentials: Record<string, string>;
  /** The platform's signature headers for these exact bytes. */
  sign(payload: string): Record<string, string>;
}

const PLATFORMS: Platform[] = [
  {
    channelType: 'whatsapp',
    identifier: '106540352242922',
    credentials: { accessToken: 'wa-token', appSecret: 'wa-secret', verifyToken: 'wa-verify' },
    sign: (payload) => ({ 'x-hub-signature-256': `sha256=${hmac('wa-secret', payload, 'hex')}` }),
  },
  {
    channelType: 'telegram',
    identifier: '7000002',
    credentials: { botToken: '7000002:AAE-token', webhookSecret: 'tg-secret' },
    sign: () => ({ 'x-telegram-bot-api-secret-token': 'tg-secret' }),
  },
  {
    channelType: 'slack',
    identifier: 'T0BODIES:A0BODIES',
    credentials: { botToken: 'xoxb-bodies', signingSecret: 'slack-secret' },
    sign: (payload) => {
      const ts = String(Math.floor(Date.now() / 1000));
      return {
        'x-slack-request-timestamp': ts,
        'x-slack-signature': `v0=${hmac('slack-secret', `v0:${ts}:${payload}`, 'hex')}`,
      };
    },
  },
  {
    channelType: 'line',
    identifier: 'U0b0d1e2s3b4o5d6i7e8s9a0b1c2d3e4f',
    credentials: { channelAccessToken: 'line-token', channelSecret: 'line-secret' },
    sign: (payload) => ({ 'x-line-signature': hmac('line-secret', payload, 'base64') }),
  },
];

/** SMS: form bodies, signed over the URL and the params. */
const SMS = {
  channelType: 'sms',
  identifier: '+15017122662',
  credentials: {
    accountSid: 'ACbodies0000000000000000000000000',
    authToken: 'bodies45abcde12345abcde12345abcd',
  },
};

const connectionIds = new Map<string, string>();
beforeAll(async () => {
  for (const p of [...PLATFORMS, SMS]) {
    const connection = await world.connect({
      channelType: p.channelType,
      externalIdentifier: p.identifier,
      credentials: p.credentials,
    });
    connectionIds.set(p.channelType, connection.id);
  }
});

const urlOf = (p: { channelType: string; identifier: string }) =>
  `/api/v1/channels/${p.channelType}/webhook/${encodeURIComponent(p.identifier)}`;

const postSigned = (p: Platform, payload: string, contentType: string) =>
  world.app.inject({
    method: 'POST',
    url: urlOf(p),
    headers: { 'content-type': contentType, ...p.sign(payload) },
    payload,
  });

describe.each(PLATFORMS)('$channelType: a signed body the platform never sends', (p) => {
  const refused = async (payload: string, contentType: string, status: number, code: string) => {
    const before = await world.receivedCount(connectionIds.get(p.channelType)!);
    const res = await postSigned(p, payload, contentType);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ success: false, error: { code, message: expect.any(String) } });
    expect(await world.receivedCount(connectionIds.get(p.channelType)!)).toBe(before);
    expect(await world.drain()).toEqual({ inbound: 0, sent: 0, failed: 0 });
  };

  it('malformed JSON is 400 BAD_REQUEST', () =>
    refused('{"update_id": 1, "mess', 'application/json', 400, 'BAD_REQUEST'));
  it('an empty body is 400 BAD_REQUEST', () => refused('', 'application/json', 400, 'BAD_REQUEST'));
  it('JSON that is not an object is 400 BAD_REQUEST', () =>
    refused('[1,2]', 'application/json', 400, 'BAD_REQUEST'));
  it('an XML body is 415 UNSUPPORTED_MEDIA_TYPE', () =>
    refused('<?xml version="1.0"?><update/>', 'application/xml', 415, 'UNSUPPORTED_MEDIA_TYPE'));
  it('valid JSON sent as text/plain is 415 and not processed', () =>
    refused(
      '{"object":"whatsapp_business_account","entry":[]}',
      'text/plain',
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ));
});

const postSms = (
  params: [string, string][],
  contentType = 'application/x-www-form-urlencoded',
  raw?: string,
) => {
  const url = urlOf(SMS);
  const signature = computeRequestSignature(SMS.credentials.authToken, `${PUBLIC_BASE_URL}${url}`, params);
  return world.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': contentType, 'x-twilio-signature': signature },
    payload: raw ?? new URLSearchParams(params).toString(),
  });
};
const smsParams = (body: string, sid: string): [string, string][] => [
  ['MessageSid', sid],
  ['AccountSid', SMS.credentials.accountSid],
  ['From', '+14155238887'],
  ['To', SMS.identifier],
  ['Body', body],
];

describe('sms: a signed body the provider never sends', () => {
  it('an empty form is 400 BAD_REQUEST', async () => {
    const res = await postSms([]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('BAD_REQUEST');
  });

  it('a JSON body is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const raw = '{"Body":"hi"}';
    const res = await postSms([...new URLSearchParams(raw).entries()], 'application/json', raw);
    expect(res.statusCode).toBe(415);
  });
});

// ---------------------------------------------------------------- text PostgreSQL cannot store
/** The MessageReceived of a conversation, after the worker ran. */
async function receivedIn(channelType: string, sessionKey: string): Promise<Record<string, unknown>> {
  await world.drain();
  const sessionId = await world.sessionOf(connectionIds.get(channelType)!, sessionKey);
  expect(sessionId).toBeDefined();
  const received = (await world.events(sessionId!)).find((e) => e.type === 'MessageReceived');
  return received?.data as Record<string, unknown>;
}

describe('text PostgreSQL cannot store in a signed message', () => {
  it('telegram: U+0000 in the text is kept as U+FFFD and recorded; the platform gets 200', async () => {
    const telegram = PLATFORMS[1]!;
    const payload = JSON.stringify({
      update_id: 910001,
      message: {
        message_id: 1,
        date: 1_790_000_000,
        chat: { id: 555101, type: 'private', first_name: 'Ada\u0000' },
        from: { id: 555101, is_bot: false, first_name: 'Ada' },
        text: 'hello\u0000world',
      },
    });
    const res = await postSigned(telegram, payload, 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
    const received = await receivedIn('telegram', '555101');
    expect(received.text).toBe('hello\ufffdworld');
    expect((received.channelMetadata as Record<string, unknown>)[REPLACED_TEXT_METADATA_KEY]).toContain(
      'text',
    );
    // The same update again is a duplicate of the stored message, not a second one.
    expect((await postSigned(telegram, payload, 'application/json')).json().data).toEqual({
      accepted: 0,
      duplicates: 1,
    });
  });

  it('whatsapp: an unpaired surrogate in the text and U+0000 in the message id', async () => {
    const whatsapp = PLATFORMS[0]!;
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
                metadata: { display_phone_number: '15550783881', phone_number_id: whatsapp.identifier },
                contacts: [{ profile: { name: 'Sheena' }, wa_id: '16505551299' }],
                messages: [
                  {
                    from: '16505551299',
                    id: 'wamid.NUL\u0000',
                    timestamp: '1749416383',
                    type: 'text',
                    text: { body: 'half an emoji \ud83d here' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const res = await postSigned(whatsapp, payload, 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.accepted).toBe(1);
    const received = await receivedIn('whatsapp', '16505551299');
    expect(received.text).toBe('half an emoji \ufffd here');
    expect(received.externalMessageId).toBe('wamid.NUL\ufffd');
    const replaced = (received.channelMetadata as Record<string, unknown>)[REPLACED_TEXT_METADATA_KEY];
    expect(replaced).toEqual(expect.arrayContaining(['text', 'externalMessageId']));
  });

  it('sms: U+0000 in the form body', async () => {
    const res = await postSms(smsParams('stop\u0000here', 'SMnul1'));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.accepted).toBe(1);
    const received = await receivedIn('sms', '+14155238887');
    expect(received.text).toBe('stop\ufffdhere');
  });
});

describe('unauthenticated requests with text PostgreSQL cannot store', () => {
  it('a path identifier is 400 VALIDATION_ERROR naming it', async () => {
    const res = await world.app.inject({
      method: 'POST',
      url: '/api/v1/channels/telegram/webhook/12%00',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^params\.connectionIdentifier: /) },
    });
  });

  it('an identifier read from an unsigned body names no connection (404), never a 500', async () => {
    const slack = await world.app.inject({
      method: 'POST',
      url: '/api/v1/channels/slack/webhook',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ team_id: 'T\u0000', api_app_id: 'A1', type: 'event_callback' }),
    });
    expect(slack.statusCode).toBe(404);
    const sms = await world.app.inject({
      method: 'POST',
      url: '/api/v1/channels/sms/webhook',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'To=%2B1555%00&From=x&Body=hi',
    });
    expect(sms.statusCode).toBe(404);
    expect(sms.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
