import type { AddressInfo } from 'node:net';
import { loadConfig } from '@parley/platform';
import {
  createInProcessVoiceConcurrencyLimiter,
  type VoiceConcurrencyLimiter,
  voiceSettingsOf,
} from '@parley/voice';
import { connectionAccount } from '../../routes/voice/connectionWebhook.js';
import { type ChannelWorld, createChannelWorld, PUBLIC_BASE_URL } from '../channels/channelWorld.js';

/** Test-only: voice settings of the voice connection tests (pipeline with the offline engines). */
export const VOICE_ENV: Record<string, string> = {
  VOICE_ENABLED: 'true',
  VOICE_MODE: 'pipeline',
  VOICE_STT_ENGINE: 'pocketsphinx',
  VOICE_TTS_ENGINE: 'espeak-ng',
};

/** The API of a channel world with every voice route beside the channel webhooks, configured from `env`. */
export function voiceOptions(
  parts: Pick<ChannelWorld, 'store' | 'connections' | 'runtime' | 'auth'>,
  limiter: VoiceConcurrencyLimiter,
  env: Record<string, string> = VOICE_ENV,
) {
  const settings = voiceSettingsOf(loadConfig(env));
  const { store, connections, runtime } = parts;
  return {
    channelConnections: { verifyApiKey: (k: string) => parts.auth.verifyApiKey(k), connections },
    voiceConnections: { connections, store, settings, limiter, publicBaseUrl: PUBLIC_BASE_URL },
    voiceGateway: { connections, store, runtime, settings, limiter },
    voiceMedia: {
      account: async (sid: string, parameters: Readonly<Record<string, string>>) =>
        connectionAccount(await connections.resolveById(parameters.connectionId ?? ''), sid),
      store,
      runtime,
      settings,
      limiter,
    },
  };
}

/** A channel world with the voice routes, listening on 127.0.0.1 (wsBase: its ws:// origin). */
export async function startVoiceChannelWorld(env: Record<string, string> = VOICE_ENV) {
  const limiter = createInProcessVoiceConcurrencyLimiter();
  const world = await createChannelWorld({ app: (parts) => voiceOptions(parts, limiter, env) });
  await world.app.listen({ host: '127.0.0.1', port: 0 });
  const wsBase = `ws://127.0.0.1:${(world.app.server.address() as AddressInfo).port}`;
  return { world, limiter, wsBase };
}
