import type { VoiceSettings } from '../voiceSettings.js';
import type { RealtimeVoiceProvider } from './realtimeProvider.js';

export type VoiceModeChoice =
  | { mode: 'pipeline' }
  | { mode: 'realtime'; model: string }
  | { mode: 'unavailable'; reason: string };

/** The realtime provider voice.realtime.defaultProvider names (default `openai`), if configured. */
export function realtimeProviderOf(
  settings: VoiceSettings,
  providers: readonly RealtimeVoiceProvider[],
): RealtimeVoiceProvider | null {
  if (!settings.realtime.enabled) return null;
  const name = settings.realtime.defaultProvider ?? 'openai';
  return providers.find((p) => p.name === name) ?? null;
}

/**
 * How a call is answered (spec 001 "Voice configuration" voice.mode): `pipeline` always by the
 * pipeline; `realtime` by the realtime provider (the agent's model when the provider serves it,
 * else the provider's default realtime model), unavailable without one; `auto` by the realtime
 * provider when voice.realtime.enabled is on, a provider is configured and the agent's model is a
 * realtime one it serves, else by the pipeline. `agentModel` null: the agent is not known (a
 * remote agent answers the session), which only the pipeline can serve.
 */
export function chooseVoiceMode(
  settings: VoiceSettings,
  provider: RealtimeVoiceProvider | null,
  agentModel: string | null,
): VoiceModeChoice {
  switch (settings.mode) {
    case 'pipeline':
      return { mode: 'pipeline' };
    case 'realtime':
      if (provider === null) return { mode: 'unavailable', reason: 'realtime provider not configured' };
      if (agentModel === null)
        return { mode: 'unavailable', reason: 'the session is answered by a remote agent' };
      return {
        mode: 'realtime',
        model: provider.supportsModel(agentModel) ? agentModel : provider.defaultModel,
      };
    case 'auto':
      return provider !== null && agentModel !== null && provider.supportsModel(agentModel)
        ? { mode: 'realtime', model: agentModel }
        : { mode: 'pipeline' };
    default: {
      const exhaustive: never = settings.mode;
      throw new Error(`unknown voice mode ${String(exhaustive)}`);
    }
  }
}
