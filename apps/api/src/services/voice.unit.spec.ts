import { ConfigError, loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { realtimeProvidersOf } from './voice.js';

const config = (env: Record<string, string>) => loadConfig({ VOICE_ENABLED: 'true', ...env });

describe('realtimeProvidersOf', () => {
  it('configures the openai realtime provider once realtime is enabled and a key or URL is set', () => {
    expect(realtimeProvidersOf(config({ OPENAI_API_KEY: 'sk-x' }))).toEqual([]);
    expect(realtimeProvidersOf(config({ VOICE_REALTIME_ENABLED: 'true' }))).toEqual([]);
    const [withKey] = realtimeProvidersOf(config({ VOICE_REALTIME_ENABLED: 'true', OPENAI_API_KEY: 'sk-x' }));
    expect(withKey?.name).toBe('openai');
    const [withUrl] = realtimeProvidersOf(
      config({ VOICE_REALTIME_ENABLED: 'true', VOICE_REALTIME_URL: 'ws://127.0.0.1:9/v1/realtime' }),
    );
    expect(withUrl?.supportsModel('gpt-realtime')).toBe(true);
  });
  it('refuses a default provider that does not exist', () => {
    expect(() =>
      realtimeProvidersOf(
        config({
          VOICE_REALTIME_ENABLED: 'true',
          OPENAI_API_KEY: 'sk-x',
          VOICE_REALTIME_DEFAULT_PROVIDER: 'azure',
        }),
      ),
    ).toThrow(ConfigError);
  });
});
