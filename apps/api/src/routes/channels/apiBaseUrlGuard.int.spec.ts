import { createChannelAdapters } from '@parley/channels';
import {
  LOOPBACK_API_BASE_URLS,
  type RecordedRequest,
  signSmsApi,
  smsApiInbound,
  startStandIn,
} from '@parley/channels/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChannelWorld, createChannelWorld } from '../../testing/channels/channelWorld.js';
import { VONAGE_PATH, VONAGE_SECRET } from '../../testing/channels/vonageCases.js';

/**
 * The apiBaseUrl guard at send time: a connection whose apiBaseUrl the worker's guard refuses (the
 * allowlist changed since it was saved, or its host now resolves to a private address) fails its
 * send for good without calling the URL.
 */
let world: ChannelWorld;
let platform: { baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> };
const NUMBER = '447700900800';
const USER = '447700900801';

beforeAll(async () => {
  world = await createChannelWorld({ adapters: createChannelAdapters() });
  platform = await startStandIn(() => ({
    status: 200,
    body: { 'message-count': '1', messages: [{ to: USER, 'message-id': '0D0000000001', status: '0' }] },
  }));
}, 60_000);
afterAll(async () => {
  await platform?.close();
  await world?.close();
});

describe('settings.apiBaseUrl at send time', () => {
  it('a URL the worker’s guard refuses is never called: the send fails for good, with the reason', async () => {
    const connection = await world.connect({
      channelType: 'sms',
      provider: 'vonage',
      externalIdentifier: NUMBER,
      credentials: { signatureSecret: VONAGE_SECRET, apiKey: 'abcd1234', apiSecret: 'abcdef0123456789' },
      settings: { apiBaseUrl: platform.baseUrl, vonageApi: 'sms' },
    });
    const inbound = await world.app.inject({
      method: 'POST',
      url: VONAGE_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(
        signSmsApi(smsApiInbound(1, NUMBER, USER), VONAGE_SECRET, 'md5hash'),
      ).toString(),
    });
    expect(inbound.statusCode).toBe(200);
    // The worker's guard without the loopback allowlist (CHANNEL_API_BASE_URL_ALLOWLIST unset).
    world.deps.apiBaseUrl = {};
    try {
      expect(await world.drain()).toEqual({ inbound: 1, sent: 0, failed: 1 });
    } finally {
      world.deps.apiBaseUrl = LOOPBACK_API_BASE_URLS;
    }
    expect(platform.requests).toHaveLength(0);
    const sessionId = (await world.sessionOf(connection.id, USER)) ?? '';
    const failed = (await world.events(sessionId)).find((e) => e.type === 'ChannelSendFailed');
    expect(failed?.data).toMatchObject({
      error: 'settings.apiBaseUrl refused (forbidden_address)',
      retryable: false,
    });
  });
});
