import { CHANNEL_MANIFEST } from '@parley/channels';
import { openApiProblems } from '@parley/http/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ChannelWorld } from '../../testing/channels/channelWorld.js';
import { startVoiceChannelWorld } from '../../testing/voice/voiceChannelWorld.js';

let world: ChannelWorld;
let wsBase: string;
let writeKey: string;
let writeProject: string;

beforeAll(async () => {
  ({ world, wsBase } = await startVoiceChannelWorld());
  const tenant = await world.auth.createTenant({ name: 'voice connections' });
  writeProject = (await world.auth.createProject({ tenantId: tenant.id, slug: 'voice-connections' })).id;
  writeKey = (
    await world.auth.createApiKey({ projectId: writeProject, name: 'w', scopes: ['channels.write'] })
  ).key;
});
afterAll(async () => {
  await world?.close();
});

const errorOf = (res: { statusCode: number; json(): unknown }) => ({
  status: res.statusCode,
  code: (res.json() as { error?: { code?: string } }).error?.code,
});

describe('OpenAPI', () => {
  it('documents the voice connection webhook in a valid OpenAPI 3.1 document', async () => {
    const document = (await world.app.inject('/openapi.json')).json();
    const routes = [{ method: 'POST', url: '/api/v1/channels/voice/webhook/{connectionIdentifier}' }];
    expect(openApiProblems(document, routes)).toEqual([]);
  });
});

describe('every webhook path the manifest advertises answers', () => {
  /** Each advertised path of a connection-eligible channel type and of its provider variants. */
  const advertised = CHANNEL_MANIFEST.filter((e) => e.isConnectionEligible).flatMap((e) => [
    { type: e.channelType, pattern: e.webhookPathPattern },
    ...e.providers
      .filter((v) => !v.default)
      .map((v) => ({ type: `${e.channelType}/${v.provider}`, pattern: v.webhookPathPattern })),
  ]);

  it.each(advertised.filter((a) => a.pattern !== ''))('$type: $pattern', async ({ pattern }) => {
    const path = pattern.replace(':identifier', 'walk-nobody').replace(':streamId', 'walk-nobody');
    if (pattern.includes('/stream/')) {
      // The voice gateway socket: it opens, and an unknown connection is refused in its own protocol.
      const socket = new WebSocket(`${wsBase}${path}`);
      const frames: string[] = [];
      socket.on('message', (data) => frames.push(String(data)));
      socket.on('open', () =>
        socket.send(
          JSON.stringify({
            type: 'start',
            callId: 'c',
            token: 't',
            format: { encoding: 'mulaw', sampleRate: 8000 },
          }),
        ),
      );
      const code = await new Promise<number>((resolve) => socket.on('close', (c) => resolve(c)));
      expect(code).toBe(1008);
      expect(JSON.parse(frames[0] ?? '{}')).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });
      return;
    }
    const res = await world.app.inject({ method: 'POST', url: path, payload: {} });
    // Served: the channel type is known and the route looks for the connection (none is named so, or
    // a path without an identifier finds none in an empty body).
    expect(res.json()).toEqual({
      success: false,
      error: pattern.includes(':')
        ? { code: 'NOT_FOUND', message: 'No channel connection for this identifier' }
        : { code: 'VALIDATION_ERROR', message: 'The request names no channel connection identifier' },
    });
  });

  it('covers the voice connection, the gateway and byoc_sip', () => {
    expect(advertised.map((a) => a.pattern)).toEqual(
      expect.arrayContaining([
        '/api/v1/channels/voice/webhook/:identifier',
        '/api/v1/channels/voice_gateway/stream/:identifier',
        '/api/v1/channels/voice/byoc_sip/stream/:identifier',
      ]),
    );
  });
});

describe('byoc_sip connections: the SIP gateway’s address and port, validated', () => {
  const create = (body: object) =>
    world.app.inject({
      method: 'POST',
      url: `/api/projects/${writeProject}/channel-connections`,
      headers: { 'x-api-key': writeKey },
      payload: {
        channelType: 'voice',
        provider: 'byoc_sip',
        credentials: { inboundAuthToken: 'tok' },
        ...body,
      },
    });

  it('creates one with a host and a port, advertising its gateway socket', async () => {
    const res = await create({
      externalIdentifier: 'trunk-a',
      settings: { sipGateway: { host: 'sbc.example.net', port: 5061, transport: 'tls' } },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().connection).toMatchObject({
      channelType: 'voice',
      provider: 'byoc_sip',
      credentialNames: ['inboundAuthToken'],
      settings: { sipGateway: { host: 'sbc.example.net', port: 5061, transport: 'tls' } },
      webhookPath: '/api/v1/channels/voice/byoc_sip/stream/trunk-a',
    });
  });

  it('400 INVALID_SETTINGS without a SIP gateway, for a bad host, a port out of range; 400 INVALID_CREDENTIALS without the token', async () => {
    const bad: object[] = [
      {},
      { sipGateway: {} },
      { sipGateway: { host: 'sip://sbc.example.net' } },
      { sipGateway: { host: 'sbc.example.net:5060' } },
      { sipGateway: { host: 'sbc.example.net', port: 0 } },
      { sipGateway: { host: 'sbc.example.net', port: 65_536 } },
      { sipGateway: { host: 'sbc.example.net', port: '5060' } },
      { sipGateway: { host: 'sbc.example.net', transport: 'sctp' } },
    ];
    for (const [i, settings] of bad.entries()) {
      const res = await create({ externalIdentifier: `bad-${i}`, settings });
      expect(errorOf(res), JSON.stringify(settings)).toEqual({ status: 400, code: 'INVALID_SETTINGS' });
    }
    for (const host of ['10.1.2.3', '2001:db8::1', 'localhost']) {
      expect(
        (
          await create({
            externalIdentifier: `ok-${host.replace(/[:.]/g, '-')}`,
            settings: { sipGateway: { host } },
          })
        ).statusCode,
      ).toBe(201);
    }
    const noToken = await create({
      externalIdentifier: 'no-token',
      credentials: {},
      settings: { sipGateway: { host: 'a.example' } },
    });
    expect(errorOf(noToken)).toEqual({ status: 400, code: 'INVALID_CREDENTIALS' });
  });
});
