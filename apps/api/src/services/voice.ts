import { storedCallerNumberKey } from '@parley/analytics';
import type { AuthStore } from '@parley/auth';
import { type IngestResponse, type IngestScope, ingest } from '@parley/ingest';
import { ConfigError } from '@parley/platform';
import { type ProcessDependencies, telephonyAccountsOf } from '@parley/process-services';
import { handleRecordingStatusCallback } from '@parley/telephony';
import {
  createOpenAiRealtimeProvider,
  OPENAI_REALTIME_PROVIDER,
  type RealtimeVoiceProvider,
  voiceLimiterFromConfig,
  voiceSettingsOf,
} from '@parley/voice';
import {
  CONNECTION_STREAM_PARAMETER,
  connectionAccount,
  type VoiceConnectionWebhookOptions,
} from '../routes/voice/connectionWebhook.js';
import type { VoiceGatewayRouteOptions } from '../routes/voice/gatewaySocket.js';
import type { VoiceMediaRouteOptions } from '../routes/voice/mediaStream.js';
import type { RtcVoiceRouteOptions } from '../routes/voice/rtcRoutes.js';
import type { TelephonyVoiceRouteOptions } from '../routes/voice/telephonyRoutes.js';
import type { VoiceRouteOptions } from '../routes/voice.js';

/** A project's recording retention in days (ProjectSettings.recording.retentionDays; null: none). */
export const recordingRetentionDays =
  (auth: AuthStore) =>
  async (projectId: string): Promise<number | null> =>
    (await auth.getProject(projectId))?.settings.recording?.retentionDays ?? null;

/** The ingest path as every route that appends facts uses it (POST /api/v1/ingest, the voice webhooks). */
export function ingestFacts(
  system: ProcessDependencies,
  auth: AuthStore,
): (scope: IngestScope, items: readonly unknown[]) => Promise<IngestResponse> {
  const { pool, store } = system;
  const deps = {
    store,
    pool,
    normaliseCallerNumber: storedCallerNumberKey,
    recordingRetentionDays: recordingRetentionDays(auth),
  };
  return (scope, items) => ingest(deps, scope, items);
}

/** The telephony webhooks' services: accounts, signature verification, idempotent ingest. */
export function voiceServices(system: ProcessDependencies, auth: AuthStore): VoiceRouteOptions {
  const { config } = system;
  const accounts = telephonyAccountsOf(system);
  return {
    ...(config.PUBLIC_BASE_URL === undefined ? {} : { publicBaseUrl: config.PUBLIC_BASE_URL }),
    recordingStatus: (request) =>
      handleRecordingStatusCallback(
        {
          account: (accountSid) => accounts.secrets(accountSid),
          ingest: ingestFacts(system, auth),
        },
        request,
      ),
  };
}

/**
 * The voice routes of spec 001 §4.4 and §4.5 (/api/v1/voice/*, /api/v1/<VOICE_RTC_VENDOR>/*):
 * settings from the environment, concurrency limits in Redis when REDIS_URL is set.
 */
export function voiceApiServices(
  system: ProcessDependencies,
  verifyApiKey: TelephonyVoiceRouteOptions['verifyApiKey'],
  verifyJwt: TelephonyVoiceRouteOptions['verifyJwt'],
): {
  telephony: TelephonyVoiceRouteOptions;
  rtc: RtcVoiceRouteOptions;
  /** The media WebSocket's services, given the runtime the calls' turns run on. */
  media(
    runtime: VoiceMediaRouteOptions['runtime'],
    connections: VoiceConnectionWebhookOptions['connections'] | null,
  ): VoiceMediaRouteOptions;
  /** The webhook of `voice` connections (answers TwiML like /voice/connect, with the connection's token). */
  connections(connections: VoiceConnectionWebhookOptions['connections']): VoiceConnectionWebhookOptions;
  /** The voice gateway socket's services, given the runtime and the channel connections. */
  gateway(
    runtime: VoiceGatewayRouteOptions['runtime'],
    connections: VoiceGatewayRouteOptions['connections'],
  ): VoiceGatewayRouteOptions;
  close(): Promise<void>;
} {
  const { config, store } = system;
  const settings = voiceSettingsOf(config);
  const { limiter, close } = voiceLimiterFromConfig(config, system.logger);
  const accounts = telephonyAccountsOf(system);
  const common = { verifyApiKey, verifyJwt, settings, limiter };
  return {
    telephony: {
      ...common,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      account: (accountSid) => accounts.secrets(accountSid),
      store,
    },
    rtc: common,
    media: (runtime, connections) => ({
      // A voice connection's call names its connection (connectionWebhook.ts); others are accounts'.
      account: async (accountSid, parameters) => {
        const connectionId = parameters[CONNECTION_STREAM_PARAMETER];
        if (connectionId === undefined) return accounts.secrets(accountSid);
        return connections === null
          ? null
          : connectionAccount(await connections.resolveById(connectionId), accountSid);
      },
      store,
      runtime,
      settings,
      limiter,
      realtimeProviders: realtimeProvidersOf(config),
    }),
    connections: (connections) => ({
      connections,
      store,
      settings,
      limiter,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    }),
    gateway: (runtime, connections) => ({ connections, store, runtime, settings, limiter }),
    close,
  };
}

/**
 * The realtime (native audio) providers: `openai` once OPENAI_API_KEY or VOICE_REALTIME_URL is set
 * and VOICE_REALTIME_ENABLED is on (docs/voice.md "Realtime mode").
 */
export function realtimeProvidersOf(config: ProcessDependencies['config']): RealtimeVoiceProvider[] {
  if (!config.VOICE_REALTIME_ENABLED) return [];
  const name = config.VOICE_REALTIME_DEFAULT_PROVIDER ?? OPENAI_REALTIME_PROVIDER;
  if (name !== OPENAI_REALTIME_PROVIDER) {
    throw new ConfigError([
      `VOICE_REALTIME_DEFAULT_PROVIDER: no realtime provider ${name} (${OPENAI_REALTIME_PROVIDER} only)`,
    ]);
  }
  if (config.OPENAI_API_KEY === undefined && config.VOICE_REALTIME_URL === undefined) return [];
  return [
    createOpenAiRealtimeProvider({
      ...(config.VOICE_REALTIME_URL === undefined ? {} : { url: config.VOICE_REALTIME_URL }),
      ...(config.OPENAI_API_KEY === undefined ? {} : { apiKey: config.OPENAI_API_KEY }),
    }),
  ];
}
