import { ConfigError, loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { voiceCapabilities, voiceSettingsOf } from './voiceSettings.js';

describe('voiceSettingsOf', () => {
  it('has the spec defaults (Voice configuration, §8) and nothing configured', () => {
    const settings = voiceSettingsOf(loadConfig({}));
    expect(settings).toEqual({
      enabled: false,
      mode: 'pipeline',
      latencyTargetMs: 500,
      maxConcurrentCalls: 50,
      sttEngine: undefined,
      ttsEngine: undefined,
      realtime: {
        enabled: false,
        defaultProvider: undefined,
        defaultVoice: undefined,
        audioFormat: 'pcm16',
        maxSessionDurationMs: 1_800_000,
      },
      rtc: {
        vendor: 'livekit',
        credentials: null,
        tokenTtlSeconds: 3600,
        maxConcurrentRooms: 50,
        maxConcurrentRoomsPerTenant: null,
      },
      telephony: { credentials: null, tokenTtlSeconds: 3600 },
    });
    expect(voiceCapabilities(settings)).toEqual({
      telephony: false,
      stt: false,
      tts: false,
      fullVoice: false,
    });
  });

  it('reads every VOICE_* variable', () => {
    const settings = voiceSettingsOf(
      loadConfig({
        VOICE_ENABLED: '1',
        VOICE_MODE: 'auto',
        VOICE_LATENCY_TARGET_MS: '800',
        VOICE_MAX_CONCURRENT_CALLS: '9',
        VOICE_STT_ENGINE: 'pocketsphinx',
        VOICE_TTS_ENGINE: 'espeak-ng',
        VOICE_REALTIME_ENABLED: 'true',
        VOICE_REALTIME_DEFAULT_PROVIDER: 'openai',
        VOICE_REALTIME_DEFAULT_VOICE: 'alloy',
        VOICE_REALTIME_AUDIO_FORMAT: 'g711_ulaw',
        VOICE_REALTIME_MAX_SESSION_DURATION_MS: '60000',
        VOICE_RTC_VENDOR: 'rooms-2',
        VOICE_RTC_URL: 'wss://rooms.example.com',
        VOICE_RTC_API_KEY: 'APIkey',
        VOICE_RTC_API_SECRET: 's'.repeat(32),
        VOICE_RTC_TOKEN_TTL_SECONDS: '120',
        VOICE_RTC_MAX_CONCURRENT_ROOMS: '3',
        VOICE_RTC_MAX_CONCURRENT_ROOMS_PER_TENANT: '2',
        VOICE_TELEPHONY_ACCOUNT_SID: 'AC1',
        VOICE_TELEPHONY_API_KEY_SID: 'SK1',
        VOICE_TELEPHONY_API_KEY_SECRET: 'secret',
        VOICE_TELEPHONY_TOKEN_TTL_SECONDS: '300',
      }),
    );
    expect(settings).toEqual({
      enabled: true,
      mode: 'auto',
      latencyTargetMs: 800,
      maxConcurrentCalls: 9,
      sttEngine: 'pocketsphinx',
      ttsEngine: 'espeak-ng',
      realtime: {
        enabled: true,
        defaultProvider: 'openai',
        defaultVoice: 'alloy',
        audioFormat: 'g711_ulaw',
        maxSessionDurationMs: 60_000,
      },
      rtc: {
        vendor: 'rooms-2',
        credentials: { url: 'wss://rooms.example.com', apiKey: 'APIkey', apiSecret: 's'.repeat(32) },
        tokenTtlSeconds: 120,
        maxConcurrentRooms: 3,
        maxConcurrentRoomsPerTenant: 2,
      },
      telephony: {
        credentials: { accountSid: 'AC1', apiKeySid: 'SK1', apiKeySecret: 'secret', appSid: undefined },
        tokenTtlSeconds: 300,
      },
    });
    expect(voiceCapabilities(settings)).toEqual({ telephony: true, stt: true, tts: true, fullVoice: true });
  });

  it.each([
    ['VOICE_MODE', 'hybrid'],
    ['VOICE_ENABLED', 'yes'],
    ['VOICE_RTC_VENDOR', 'voice'],
    ['VOICE_RTC_VENDOR', 'Live/Kit'],
    ['VOICE_RTC_URL', 'ftp://rooms.example.com'],
    ['VOICE_RTC_API_SECRET', 'short'],
    ['VOICE_RTC_TOKEN_TTL_SECONDS', '0'],
    ['VOICE_RTC_MAX_CONCURRENT_ROOMS', '0'],
    ['VOICE_RTC_MAX_CONCURRENT_ROOMS_PER_TENANT', '0'],
    ['VOICE_MAX_CONCURRENT_CALLS', '-1'],
    ['VOICE_LATENCY_TARGET_MS', 'fast'],
    ['VOICE_REALTIME_MAX_SESSION_DURATION_MS', '10'],
    ['VOICE_REALTIME_ENABLED', 'on'],
    ['VOICE_REALTIME_AUDIO_FORMAT', 'mp3'],
    ['VOICE_REALTIME_DEFAULT_PROVIDER', 'Open AI'],
    ['VOICE_REALTIME_DEFAULT_VOICE', 'a voice'],
  ])('refuses %s=%s at start', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('refuses the realtime mode unless voice.realtime.enabled', () => {
    expect(() => voiceSettingsOf(loadConfig({ VOICE_MODE: 'realtime' }))).toThrow(ConfigError);
    expect(() => voiceSettingsOf(loadConfig({ VOICE_MODE: 'realtime' }))).toThrow('VOICE_REALTIME_ENABLED');
    expect(voiceSettingsOf(loadConfig({ VOICE_MODE: 'realtime', VOICE_REALTIME_ENABLED: 'true' })).mode).toBe(
      'realtime',
    );
  });
});
