import { createHmac } from 'node:crypto';
import { createChannelAdapters } from '@parley/channels';
import { type RecordedRequest, startStandIn } from '@parley/channels/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_CASES, teamsStandIn, type WebhookRequest } from '../../testing/channels/adapterCases.js';
import { type ChannelWorld, createChannelWorld } from '../../testing/channels/channelWorld.js';

/**
 * Every real adapter end to end (the "done when"): a signed webhook in the platform's
 * shape is answered by the agent through the platform's API (a local stand-in); a forged, replayed
 * or repeated request is refused or ignored, and nothing is lost or answered twice.
 */
let world: ChannelWorld;
beforeAll(async () => {
  const teams = await teamsStandIn();
  world = await createChannelWorld({
    adapters: createChannelAdapters({ openIdMetadataUrl: teams.metadataUrl }),
  });
}, 60_000);
afterAll(() => world?.close());

describe.each(ADAPTER_CASES.map((c) => ({ ...c, label: c.label ?? c.channelType })))('$label', (c) => {
  let platform: { baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> };
  let connectionId: string;
  beforeAll(async () => {
    platform = c.startPlatform
      ? await c.startPlatform()
      : await startStandIn((request) => c.platform(request));
    connectionId = (
      await world.connect({
        channelType: c.channelType,
        ...(c.provider === undefined ? {} : { provider: c.provider }),
        externalIdentifier: c.identifier,
        credentials: c.credentials,
        settings: { ...c.settings, apiBaseUrl: platform.baseUrl },
      })
    ).id;
  });
  afterAll(() => platform?.close());

  const post = async (request: WebhookRequest | Promise<WebhookRequest>) =>
    world.app.inject({ method: 'POST', ...(await request) });

  it('answers a signed message through the platform API, and records the delivery', async () => {
    const turnsBefore = world.turns;
    const answer = await post(c.webhook(1, true));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
    expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
    expect(world.turns - turnsBefore).toBe(1);

    const call = c.replyCall(platform.requests);
    expect(call, `no reply call among ${platform.requests.map((r) => r.path).join(', ')}`).toBeDefined();
    c.expectReply(call!);
    const sessionId = await world.sessionOf(connectionId, c.sessionKey(1));
    expect(sessionId).toBeDefined();
    const events = await world.events(sessionId!);
    const received = events.find((e) => e.type === 'MessageReceived');
    expect(received?.data).toMatchObject({
      externalMessageId: expect.any(String),
      channelMetadata: expect.any(Object),
    });
    const replied = events.find((e) => e.type === 'AgentReplied');
    const sent = events.find((e) => e.type === 'ChannelMessageSent');
    expect(sent?.data).toMatchObject({
      connectionId,
      channelType: c.channelType,
      messageId: (replied?.data as { messageId?: string } | undefined)?.messageId,
    });
  });

  it('refuses a forged signature with 401 and records nothing', async () => {
    const before = await world.receivedCount(connectionId);
    const answer = await post(c.webhook(2, false));
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    expect(await world.receivedCount(connectionId)).toBe(before);
    expect(await world.drain()).toEqual({ inbound: 0, sent: 0, failed: 0 });
  });

  it('answers a message delivered twice, and twice at once, once', async () => {
    const calls = platform.requests.length;
    const turnsBefore = world.turns;
    const request = c.webhook(3, true);
    const answers = await Promise.all([post(request), post(request)]);
    const again = await post(request);
    const counts = [...answers, again].map((a) => a.json().data as { accepted: number; duplicates: number });
    expect(counts.reduce((n, d) => n + d.accepted, 0)).toBe(1);
    expect(counts.reduce((n, d) => n + d.duplicates, 0)).toBe(2);
    expect(await world.drain()).toMatchObject({ inbound: 1, sent: 1 });
    expect(world.turns - turnsBefore).toBe(1);
    expect(c.replyCall(platform.requests.slice(calls))).toBeDefined();
  });

  // Only platforms with a replay window (a signed timestamp) get this test.
  const replayed = c.replayed;
  if (replayed !== undefined) {
    it('refuses a correctly signed request outside the replay window', async () => {
      const before = await world.receivedCount(connectionId);
      const answer = await post(replayed(4));
      expect(answer.statusCode).toBe(401);
      expect(await world.receivedCount(connectionId)).toBe(before);
    });
  }
});

describe('line: a postback in a group', () => {
  it('runs as an action in the group’s session, answered with the reply token, without a loading animation', async () => {
    const secret = 'line-group-secret';
    const bot = 'U0a1b2c3d4e5f60718293a4b5c6d7e8f9';
    const group = 'Ca56f94637c0123456789abcdef012345';
    const platform = await startStandIn(() => ({
      status: 200,
      body: { sentMessages: [{ id: '1', quoteToken: 'q' }] },
    }));
    try {
      const connection = await world.connect({
        channelType: 'line',
        externalIdentifier: bot,
        credentials: { channelAccessToken: 'line-group-token', channelSecret: secret },
        settings: { apiBaseUrl: platform.baseUrl },
      });
      const payload = JSON.stringify({
        destination: bot,
        events: [
          {
            type: 'postback',
            mode: 'active',
            timestamp: Date.now(),
            source: { type: 'group', groupId: group, userId: 'U4af4980629a1b2c3d4e5f60718293a4b' },
            webhookEventId: '01JD9ZQ4X2M3N4P5Q6R7S8T9V1',
            deliveryContext: { isRedelivery: false },
            replyToken: 'b60d432864f44d079f6d8efe86cf404b',
            postback: { data: '["size","size-m"]' },
          },
        ],
      });
      const answer = await world.app.inject({
        method: 'POST',
        url: '/api/v1/channels/line/webhook',
        headers: {
          'content-type': 'application/json',
          'x-line-signature': createHmac('sha256', secret).update(payload).digest('base64'),
        },
        payload,
      });
      expect(answer.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
      expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
      const sessionId = await world.sessionOf(connection.id, group);
      const received = (await world.events(sessionId ?? '')).filter((e) => e.type === 'MessageReceived');
      expect(received.map((e) => e.data)).toMatchObject([
        { actionEvent: { actionId: 'size', value: 'size-m', type: 'button' } },
      ]);
      expect(platform.requests.map((r) => [r.path, (r.body as { replyToken?: string }).replyToken])).toEqual([
        ['/v2/bot/message/reply', 'b60d432864f44d079f6d8efe86cf404b'],
      ]);
    } finally {
      await platform.close();
    }
  });
});
