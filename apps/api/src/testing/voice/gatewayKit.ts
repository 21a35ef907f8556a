import { loadConfig } from '@parley/platform';
import { createAgentStore } from '@parley/runtime';
import {
  createInProcessVoiceConcurrencyLimiter,
  type VoiceConcurrencyLimiter,
  voiceSettingsOf,
} from '@parley/voice';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { VoiceGatewayRouteOptions } from '../../routes/voice/gatewaySocket.js';
import type { VoiceWorld } from './voiceWorld.js';

/** Test-only helpers of the voice gateway socket specs. */
export const ENV: Record<string, string> = {
  VOICE_ENABLED: 'true',
  VOICE_MODE: 'pipeline',
  VOICE_STT_ENGINE: 'pocketsphinx',
  VOICE_TTS_ENGINE: 'espeak-ng',
};
export const TOKEN = 'gateway-inbound-token-0123456789';
export type Json = Record<string, unknown>;

/** The gateway socket's API over a voice world, and connections of new projects to call it on. */
export function gatewayKit(world: VoiceWorld) {
  let n = 0;
  async function gatewayApp(
    env: Record<string, string> = ENV,
    limiter: VoiceConcurrencyLimiter = createInProcessVoiceConcurrencyLimiter(),
    extra: Partial<VoiceGatewayRouteOptions> = {},
  ) {
    const settings = voiceSettingsOf(loadConfig(env));
    const voiceGateway = {
      connections: world.connections,
      store: world.store,
      runtime: world.runtime,
      settings,
    };
    return world.listen({ voiceGateway: { ...voiceGateway, limiter, ...extra } });
  }

  /** A voice_gateway connection (or a voice connection on byoc_sip) of a new project. */
  async function newConnection(
    kind: 'voice_gateway' | 'byoc_sip' = 'voice_gateway',
    active = true,
    agentName?: string,
  ) {
    n += 1;
    const project = await world.newProject();
    const identifier = `gw-${process.pid}-${n}`;
    const connection = await world.connections.create(project.projectId, {
      channelType: kind === 'byoc_sip' ? 'voice' : 'voice_gateway',
      ...(kind === 'byoc_sip'
        ? { provider: 'byoc_sip', settings: { sipGateway: { host: 'sip.example.net', port: 5080 } } }
        : {}),
      externalIdentifier: identifier,
      credentials: { inboundAuthToken: TOKEN },
      active,
      ...(agentName === undefined ? {} : { agentName }),
    });
    if (agentName !== undefined)
      await createAgentStore(world.db.pool).create(project.projectId, { name: agentName });
    const path =
      kind === 'byoc_sip'
        ? `/api/v1/channels/voice/byoc_sip/stream/${identifier}`
        : `/api/v1/channels/voice_gateway/stream/${identifier}`;
    expect(connection.webhookPath).toBe(path);
    return { ...project, connection, path };
  }

  return { gatewayApp, newConnection };
}

/** A gateway-side test client: JSON control frames and binary audio. */
export async function openGateway(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  const control: Json[] = [];
  const audio: Buffer[] = [];
  let closed: { code: number; reason: string } | null = null;
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) audio.push(Buffer.from(data));
    else control.push(JSON.parse(data.toString('utf8')) as Json);
  });
  const closedP = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => {
      closed = { code, reason: String(reason) };
      resolve(closed);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    socket,
    control,
    audio,
    closed: closedP,
    json: (frame: Json) => socket.send(JSON.stringify(frame)),
    async until(predicate: () => boolean, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (closed !== null) throw new Error(`socket closed ${closed.code} ${closed.reason}`);
        if (Date.now() > deadline) throw new Error('timed out waiting for the gateway socket');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
