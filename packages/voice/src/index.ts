export {
  bearerOf,
  GATEWAY_CLOSE,
  GATEWAY_ENCODINGS,
  GATEWAY_SAMPLE_RATES,
  type GatewayControl,
  type GatewayFormat,
  type GatewayOutbound,
  type GatewayStart,
  gatewayControlSchema,
  gatewayFormatSchema,
  gatewayStartSchema,
  tokenMatches,
} from './gateway/framing.js';
export { type GatewayAudio, gatewayAudio, pcm16ToSamples, samplesToPcm16 } from './gateway/gatewayAudio.js';
export { recordGatewayCall } from './gateway/gatewayCallStatus.js';
export {
  type AdmitDecision,
  slotSetName,
  type VoiceConcurrencyLimiter,
  type VoicePool,
  type VoiceScope,
  type VoiceSlot,
} from './limits/concurrencyLimiter.js';
export { createInProcessVoiceConcurrencyLimiter } from './limits/inProcessConcurrencyLimiter.js';
export { voiceLimiterFromConfig } from './limits/limiterFromConfig.js';
export {
  createRedisVoiceConcurrencyLimiter,
  type RedisVoiceConcurrencyLimiterOptions,
} from './limits/redisConcurrencyLimiter.js';
export {
  decodeMulaw,
  encodeMulaw,
  FRAME_MS,
  FRAME_SAMPLES,
  linearToMulaw,
  MULAW_SILENCE,
  mulawFrames,
  mulawToLinear,
  parseWav,
  resample,
  rms,
  TELEPHONY_SAMPLE_RATE,
  toTelephonyFrames,
  type Wav,
  writeWav,
} from './pipeline/audio.js';
export {
  Endpointer,
  type EndpointerEvent,
  type EndpointingOptions,
  endSilenceMsFor,
} from './pipeline/endpointer.js';
export {
  espeakTextToSpeech,
  POCKETSPHINX_TUNING,
  type PocketsphinxOptions,
  parsePocketsphinxTimes,
  pocketsphinxArgs,
  pocketsphinxSpeechToText,
  SPEECH_TO_TEXT_ENGINES,
  type SpeechToText,
  speechToTextOf,
  TEXT_TO_SPEECH_ENGINES,
  type TextToSpeech,
  type Transcript,
  textToSpeechOf,
} from './pipeline/engines.js';
export { arpaLanguageModel, dictionaryWords, writeDomainModel } from './pipeline/languageModel.js';
export { VOICE_CALL_METRICS_TRACE, voiceMetricsTraceEvent } from './pipeline/metricsTrace.js';
export {
  type CallOutput,
  createPipelineCall,
  type PipelineCall,
  type PipelineCallOptions,
  type VoiceAgent,
  type VoiceCallMetrics,
} from './pipeline/pipelineCall.js';
export { ReplyChunker } from './pipeline/replyChunker.js';
export {
  type CallRecognizer,
  processCallRecognizer,
  type RecognizerProcessOptions,
  Upsampler,
  type UtteranceStream,
} from './pipeline/streamingStt.js';
export { type OnAudio, streamWavCommand, wavStreamHeader } from './pipeline/streamingTts.js';
export { SUPPORT_CORPUS } from './pipeline/supportCorpus.js';
export { TelephonyEncoder } from './pipeline/telephonyEncoder.js';
export { wordErrorRate, wordErrors, wordsOf } from './pipeline/wer.js';
export { WER_PHRASES } from './pipeline/werPhrases.js';
export {
  createOpenAiRealtimeProvider,
  DEFAULT_OPENAI_REALTIME_MODEL,
  DEFAULT_OPENAI_REALTIME_URL,
  OPENAI_REALTIME_PROVIDER,
  type OpenAiRealtimeOptions,
} from './realtime/openAiRealtime.js';
export {
  alawToLinear,
  bytesPerMs,
  createInboundConverter,
  createOutboundConverter,
  linearToAlaw,
  type OutboundConverter,
  PCM16_SAMPLE_RATE,
  type RealtimeAudioFormat,
} from './realtime/realtimeAudio.js';
export {
  type RealtimeCallEnd,
  type RealtimeCallOptions,
  startRealtimeCall,
} from './realtime/realtimeCall.js';
export type {
  RealtimeEvent,
  RealtimeFunction,
  RealtimeResponseStatus,
  RealtimeSession,
  RealtimeSessionConfig,
  RealtimeUsage,
  RealtimeVoiceProvider,
} from './realtime/realtimeProvider.js';
export type {
  RealtimeAgentConversation,
  RealtimeAgentTurn,
  RealtimeResponseRecord,
} from './realtime/realtimeTurns.js';
export { chooseVoiceMode, realtimeProviderOf, type VoiceModeChoice } from './realtime/voiceMode.js';
export {
  liveKitRoomService,
  type RoomService,
  RoomServiceUnavailableError,
} from './rtc/roomService.js';
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
export { mediaStreamToken, STREAM_TOKEN_PARAMETER, verifyMediaStreamToken } from './telephony/streamToken.js';
export {
  type RtcCredentials,
  type TelephonyTokenCredentials,
  type VoiceSettings,
  voiceCapabilities,
  voiceSettingsOf,
} from './voiceSettings.js';
