import { startStandIn } from '@parley/channels/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_CASES } from './adapterCases.js';
import { type ChannelWorld, createChannelWorld } from './channelWorld.js';

/**
 * Every real adapter end to end (the "done when"): a signed webhook in the platform's
 * shape is answered by the agent through the platform's API (a local stand-in); a forged, replayed
 * or repeated request is refused or ignored, and nothing is lost or answered twice.
 */
let world: ChannelWorld;
beforeAll(async () => {
  world = await createChannelWorld();
}, 60_000);
afterAll(() => world?.close());

describe.each(ADAPTER_CASES)('$channelType', (c) => {
  let platform: Awaited<ReturnType<typeof startStandIn>>;
  let connectionId: string;
  beforeAll(async () => {
    platform = await startStandIn((request) => c.platform(request));
    connectionId = (
      await world.connect({
        channelType: c.channelType,
        externalIdentifier: c.identifier,
        credentials: c.credentials,
        settings: { apiBaseUrl: platform.baseUrl },
      })
    ).id;
  });
  afterAll(() => platform?.close());

  const post = (request: { url: string; headers: Record<string, string>; payload: string }) =>
    world.app.inject({ method: 'POST', ...request });

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
