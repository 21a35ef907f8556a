import { createChannelAdapters, releaseExpiredParts } from '@parley/channels';
import {
  type RecordedRequest,
  signSmsApi,
  smsApiConcatParts,
  smsApiInbound,
  startStandIn,
} from '@parley/channels/testing';
import { silentLogger } from '@parley/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChannelWorld, createChannelWorld } from '../../testing/channels/channelWorld.js';
import { VONAGE_PATH, VONAGE_SECRET } from '../../testing/channels/vonageCases.js';

/**
 * Long SMS through Vonage's SMS API: each part is its own signed webhook (`concat-ref`,
 * `concat-part`, `concat-total`); the agent gets one message with the whole text, once, whatever
 * order, repeats or concurrency the parts come with; an incomplete one is released at the timeout.
 */
let world: ChannelWorld;
let platform: { baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> };
let connectionId: string;
const NUMBER = '447700900700';
let users = 0;
const nextUser = () => {
  users += 1;
  return `4477009017${String(users).padStart(2, '0')}`;
};
const TEXTS = [
  'This is a long message that Vonage ',
  'delivered in three parts; the agent ',
  'reads it whole.',
];

beforeAll(async () => {
  world = await createChannelWorld({ adapters: createChannelAdapters() });
  platform = await startStandIn(() => ({
    status: 200,
    body: { 'message-count': '1', messages: [{ to: 'x', 'message-id': `0D${Date.now()}`, status: '0' }] },
  }));
  connectionId = (
    await world.connect({
      channelType: 'sms',
      provider: 'vonage',
      externalIdentifier: NUMBER,
      credentials: { signatureSecret: VONAGE_SECRET, apiKey: 'abcd1234', apiSecret: 'abcdef0123456789' },
      settings: { apiBaseUrl: platform.baseUrl, vonageApi: 'sms' },
    })
  ).id;
}, 60_000);
afterAll(async () => {
  await platform?.close();
  await world?.close();
});

const post = (params: Record<string, string>) =>
  world.app.inject({
    method: 'POST',
    url: VONAGE_PATH,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(signSmsApi(params, VONAGE_SECRET, 'md5hash')).toString(),
  });
const accepted = async (params: Record<string, string>) => (await post(params)).json().data;

async function receivedTexts(user: string) {
  const sessionId = (await world.sessionOf(connectionId, user)) ?? '';
  return (await world.events(sessionId))
    .filter((e) => e.type === 'MessageReceived')
    .map(
      (e) => e.data as { text: string; externalMessageId: string; channelMetadata: Record<string, unknown> },
    );
}

describe('Vonage SMS API: concatenated inbound SMS', () => {
  it('joins parts that come out of order and repeated into one message, answered once', async () => {
    const user = nextUser();
    const [one, two, three] = smsApiConcatParts(TEXTS, '17', NUMBER, user, '0C0000000001');
    if (!one || !two || !three) throw new Error('three parts');
    expect(await accepted(three)).toEqual({ accepted: 1, duplicates: 0 });
    expect(await accepted(one)).toEqual({ accepted: 1, duplicates: 0 });
    // Vonage retries a part (a lost 200): nothing changes.
    expect(await accepted(three)).toEqual({ accepted: 0, duplicates: 1 });
    expect(await world.drain()).toEqual({ inbound: 0, sent: 0, failed: 0 });
    expect(await accepted(two)).toEqual({ accepted: 1, duplicates: 0 });
    // A part retried after the message was joined is still a duplicate.
    expect(await accepted(one)).toEqual({ accepted: 0, duplicates: 1 });
    expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
    const received = await receivedTexts(user);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      text: TEXTS.join(''),
      externalMessageId: one.messageId,
      channelMetadata: {
        provider: 'vonage',
        api: 'sms',
        from: user,
        parts: {
          group: '17',
          total: 3,
          received: [1, 2, 3],
          externalMessageIds: [one.messageId, two.messageId, three.messageId],
          complete: true,
        },
      },
    });
    expect(await accepted(two)).toEqual({ accepted: 0, duplicates: 1 });
    expect(await world.drain()).toEqual({ inbound: 0, sent: 0, failed: 0 });
  });

  it('two parts at once (and a repeat among them) still make one message', async () => {
    const user = nextUser();
    const parts = smsApiConcatParts(TEXTS, '18', NUMBER, user, '0C0000000002');
    const [one, two, three] = parts;
    if (!one || !two || !three) throw new Error('three parts');
    expect(await accepted(one)).toEqual({ accepted: 1, duplicates: 0 });
    const answers = await Promise.all(
      [post(two), post(three), post(three)].map(async (r) => (await r).json().data),
    );
    expect(answers.reduce((n, a) => n + a.accepted, 0)).toBe(2);
    expect(answers.reduce((n, a) => n + a.duplicates, 0)).toBe(1);
    expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
    expect((await receivedTexts(user)).map((m) => m.text)).toEqual([TEXTS.join('')]);
  });

  it('a reference reused by the next long message of the same sender starts a new message', async () => {
    const user = nextUser();
    const first = smsApiConcatParts(['Hello ', 'there'], '19', NUMBER, user, '0C0000000003');
    const second = smsApiConcatParts(['Second ', 'message'], '19', NUMBER, user, '0C0000000004');
    for (const params of [...first, ...second]) await accepted(params);
    expect(await world.drain()).toMatchObject({ inbound: 2 });
    expect((await receivedTexts(user)).map((m) => m.text)).toEqual(['Hello there', 'Second message']);
  });

  it('releases what came of an incomplete message at the part timeout, once; a late part stands alone', async () => {
    const user = nextUser();
    const [one, two, three] = smsApiConcatParts(TEXTS, '20', NUMBER, user, '0C0000000005');
    if (!one || !two || !three) throw new Error('three parts');
    await accepted(three);
    await accepted(one);
    const sweep = (timeoutSeconds: number) =>
      releaseExpiredParts({ pool: world.db.pool, boss: world.boss, logger: silentLogger(), timeoutSeconds });
    expect(await sweep(3600)).toBe(0);
    expect(await world.drain()).toEqual({ inbound: 0, sent: 0, failed: 0 });
    expect(await sweep(0)).toBe(1);
    expect(await sweep(0)).toBe(0);
    expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
    const [released] = await receivedTexts(user);
    expect(released).toMatchObject({
      text: `${TEXTS[0]}${TEXTS[2]}`,
      externalMessageId: one.messageId,
      channelMetadata: { parts: { received: [1, 3], total: 3, complete: false } },
    });
    // The missing part arrives late: a message of its own once its own timeout passes.
    expect(await accepted(two)).toEqual({ accepted: 1, duplicates: 0 });
    expect(await sweep(0)).toBe(1);
    await world.drain();
    expect((await receivedTexts(user)).map((m) => m.text)).toEqual([`${TEXTS[0]}${TEXTS[2]}`, TEXTS[1]]);
  });

  it('concat fields that do not describe a part leave the message whole; a single SMS is unchanged', async () => {
    const user = nextUser();
    const [bad] = smsApiConcatParts(['Alone'], '21', NUMBER, user, '0C0000000006');
    if (!bad) throw new Error('one part');
    // concat-total 1 (and a part beyond the total) are no parts: queued at once.
    expect(await accepted(bad)).toEqual({ accepted: 1, duplicates: 0 });
    expect(
      await accepted({ ...bad, messageId: '0C000000000699', 'concat-part': '4', 'concat-total': '3' }),
    ).toEqual({ accepted: 1, duplicates: 0 });
    expect(await accepted(smsApiInbound(1, NUMBER, user))).toEqual({ accepted: 1, duplicates: 0 });
    expect(await world.drain()).toMatchObject({ inbound: 3 });
    expect(await receivedTexts(user)).toHaveLength(3);
  });
});
