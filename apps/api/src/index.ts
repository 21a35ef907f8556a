export { type AppOptions, buildApp } from './app.js';
export { closeGracefully } from './closeGracefully.js';
export { type AgentsRouteOptions, toAgentBody } from './routes/agents.js';
export type { AnalyticsRouteOptions, Freshness } from './routes/analytics.js';
export {
  CHAT_PERMISSION,
  type ChatRouteOptions,
  type SessionScope,
  sessionScopeFromLog,
  withExecutionQueue,
} from './routes/chat/index.js';
export type { ReadinessChecks } from './routes/health.js';
export type { IngestRouteOptions } from './routes/ingest.js';
export { createPageCache, type PageCache } from './routes/pageCache.js';
export type { RecordingsRouteOptions, SessionRecordings } from './routes/recordings/index.js';
export type { SdkBootstrapRouteOptions } from './routes/sdk/bootstrap.js';
export { type SdkChannelLookup, sdkChannelLookup } from './routes/sdk/widgetConfig.js';
export {
  CONNECTION_STREAM_PARAMETER,
  connectionAccount,
  type VoiceConnectionWebhookOptions,
} from './routes/voice/connectionWebhook.js';
export type { VoiceGatewayRouteOptions } from './routes/voice/gatewaySocket.js';
export type { VoiceMediaRouteOptions } from './routes/voice/mediaStream.js';
export type { RtcVoiceRouteOptions } from './routes/voice/rtcRoutes.js';
export type { TelephonyVoiceRouteOptions } from './routes/voice/telephonyRoutes.js';
export { RECORDING_STATUS_PATH, type VoiceRouteOptions } from './routes/voice.js';
