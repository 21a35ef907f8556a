import { type Config, ConfigError } from '@parley/platform';

/** The real-time room service (LiveKit): set only when URL, API key and secret all are. */
export interface RtcCredentials {
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** What the telephony client token is signed with (Twilio-style API key). */
export interface TelephonyTokenCredentials {
  accountSid: string;
  apiKeySid: string;
  apiKeySecret: string;
  /** The outgoing application (TwiML app) the client's calls use; absent: incoming calls only. */
  appSid?: string | undefined;
}

/**
 * The `voice.*` options of spec 001 "Voice configuration" and §8, from the environment
 * (docs/voice.md maps each dotted option to its variable).
 */
export interface VoiceSettings {
  enabled: boolean;
  mode: 'pipeline' | 'realtime' | 'auto';
  latencyTargetMs: number;
  maxConcurrentCalls: number;
  sttEngine: string | undefined;
  ttsEngine: string | undefined;
  realtime: {
    enabled: boolean;
    defaultProvider: string | undefined;
    defaultVoice: string | undefined;
    audioFormat: 'pcm16' | 'g711_ulaw' | 'g711_alaw';
    maxSessionDurationMs: number;
  };
  rtc: {
    vendor: string;
    credentials: RtcCredentials | null;
    tokenTtlSeconds: number;
    /** Rooms open at once across every tenant (spec 000 §8: global). */
    maxConcurrentRooms: number;
    /** Rooms one tenant may have open at once; null: no per-tenant limit. */
    maxConcurrentRoomsPerTenant: number | null;
  };
  telephony: { credentials: TelephonyTokenCredentials | null; tokenTtlSeconds: number };
}

type VoiceConfig = Pick<
  Config,
  | 'VOICE_ENABLED'
  | 'VOICE_MODE'
  | 'VOICE_LATENCY_TARGET_MS'
  | 'VOICE_MAX_CONCURRENT_CALLS'
  | 'VOICE_STT_ENGINE'
  | 'VOICE_TTS_ENGINE'
  | 'VOICE_REALTIME_ENABLED'
  | 'VOICE_REALTIME_DEFAULT_PROVIDER'
  | 'VOICE_REALTIME_DEFAULT_VOICE'
  | 'VOICE_REALTIME_AUDIO_FORMAT'
  | 'VOICE_REALTIME_MAX_SESSION_DURATION_MS'
  | 'VOICE_RTC_VENDOR'
  | 'VOICE_RTC_URL'
  | 'VOICE_RTC_API_KEY'
  | 'VOICE_RTC_API_SECRET'
  | 'VOICE_RTC_TOKEN_TTL_SECONDS'
  | 'VOICE_RTC_MAX_CONCURRENT_ROOMS'
  | 'VOICE_RTC_MAX_CONCURRENT_ROOMS_PER_TENANT'
  | 'VOICE_TELEPHONY_ACCOUNT_SID'
  | 'VOICE_TELEPHONY_API_KEY_SID'
  | 'VOICE_TELEPHONY_API_KEY_SECRET'
  | 'VOICE_TELEPHONY_APP_SID'
  | 'VOICE_TELEPHONY_TOKEN_TTL_SECONDS'
>;

/**
 * ConfigError for a VOICE_MODE the other options forbid: `realtime` needs VOICE_REALTIME_ENABLED (the
 * spec's voice.realtime.enabled, default false).
 */
export function voiceSettingsOf(config: VoiceConfig): VoiceSettings {
  if (config.VOICE_MODE === 'realtime' && !config.VOICE_REALTIME_ENABLED) {
    throw new ConfigError([
      'VOICE_MODE: realtime needs VOICE_REALTIME_ENABLED=true (voice.realtime.enabled)',
    ]);
  }
  const rtc =
    config.VOICE_RTC_URL !== undefined &&
    config.VOICE_RTC_API_KEY !== undefined &&
    config.VOICE_RTC_API_SECRET !== undefined
      ? {
          url: config.VOICE_RTC_URL,
          apiKey: config.VOICE_RTC_API_KEY,
          apiSecret: config.VOICE_RTC_API_SECRET,
        }
      : null;
  const telephony =
    config.VOICE_TELEPHONY_ACCOUNT_SID !== undefined &&
    config.VOICE_TELEPHONY_API_KEY_SID !== undefined &&
    config.VOICE_TELEPHONY_API_KEY_SECRET !== undefined
      ? {
          accountSid: config.VOICE_TELEPHONY_ACCOUNT_SID,
          apiKeySid: config.VOICE_TELEPHONY_API_KEY_SID,
          apiKeySecret: config.VOICE_TELEPHONY_API_KEY_SECRET,
          appSid: config.VOICE_TELEPHONY_APP_SID,
        }
      : null;
  return {
    enabled: config.VOICE_ENABLED,
    mode: config.VOICE_MODE,
    latencyTargetMs: config.VOICE_LATENCY_TARGET_MS,
    maxConcurrentCalls: config.VOICE_MAX_CONCURRENT_CALLS,
    sttEngine: config.VOICE_STT_ENGINE,
    ttsEngine: config.VOICE_TTS_ENGINE,
    realtime: {
      enabled: config.VOICE_REALTIME_ENABLED,
      defaultProvider: config.VOICE_REALTIME_DEFAULT_PROVIDER,
      defaultVoice: config.VOICE_REALTIME_DEFAULT_VOICE,
      audioFormat: config.VOICE_REALTIME_AUDIO_FORMAT,
      maxSessionDurationMs: config.VOICE_REALTIME_MAX_SESSION_DURATION_MS,
    },
    rtc: {
      vendor: config.VOICE_RTC_VENDOR,
      credentials: rtc,
      tokenTtlSeconds: config.VOICE_RTC_TOKEN_TTL_SECONDS,
      maxConcurrentRooms: config.VOICE_RTC_MAX_CONCURRENT_ROOMS,
      maxConcurrentRoomsPerTenant: config.VOICE_RTC_MAX_CONCURRENT_ROOMS_PER_TENANT ?? null,
    },
    telephony: { credentials: telephony, tokenTtlSeconds: config.VOICE_TELEPHONY_TOKEN_TTL_SECONDS },
  };
}

/** Capabilities of `GET /api/v1/voice/capabilities`: each service configured (and voice enabled). */
export function voiceCapabilities(settings: VoiceSettings): {
  telephony: boolean;
  stt: boolean;
  tts: boolean;
  fullVoice: boolean;
} {
  const telephony = settings.enabled && settings.telephony.credentials !== null;
  const stt = settings.enabled && settings.sttEngine !== undefined;
  const tts = settings.enabled && settings.ttsEngine !== undefined;
  return { telephony, stt, tts, fullVoice: telephony && stt && tts };
}
