export type {
  AdmitDecision,
  VoiceConcurrencyLimiter,
  VoicePool,
  VoiceSlot,
} from './limits/concurrencyLimiter.js';
export { createInProcessVoiceConcurrencyLimiter } from './limits/inProcessConcurrencyLimiter.js';
export { voiceLimiterFromConfig } from './limits/limiterFromConfig.js';
export {
  createRedisVoiceConcurrencyLimiter,
  type RedisVoiceConcurrencyLimiterOptions,
} from './limits/redisConcurrencyLimiter.js';
export { issueRoomToken, type RoomToken, roomIdentityOf, roomNameOf } from './rtc/roomToken.js';
export {
  parseRoomTokenInput,
  type RoomTokenInput,
  type RoomTokenInputField,
  type RoomTokenInputResult,
} from './rtc/roomTokenInput.js';
export {
  CALL_SLOT_HOLD_MS,
  type CallStatusOutcome,
  type CallWebhookDeps,
  type CallWebhookRequest,
  callSlotMember,
  handleCallStatus,
  handleConnect,
} from './telephony/callWebhooks.js';
export {
  clientIdentityOf,
  issueTelephonyClientToken,
  type TelephonyClientToken,
} from './telephony/clientToken.js';
export { connectTwiml, MEDIA_STREAM_PATH, websocketBaseOf } from './telephony/connectTwiml.js';
export {
  type RtcCredentials,
  type TelephonyTokenCredentials,
  type VoiceSettings,
  voiceCapabilities,
  voiceSettingsOf,
} from './voiceSettings.js';
