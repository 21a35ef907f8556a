import { loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { voiceSettingsOf } from '../voiceSettings.js';
import { createOpenAiRealtimeProvider } from './openAiRealtime.js';
import { chooseVoiceMode, realtimeProviderOf } from './voiceMode.js';

const settings = (env: Record<string, string>) =>
  voiceSettingsOf(loadConfig({ VOICE_ENABLED: 'true', ...env }));
const openai = createOpenAiRealtimeProvider({ url: 'ws://127.0.0.1:1/v1/realtime' });

describe('voice.mode', () => {
  it('pipeline: always the pipeline', () => {
    expect(chooseVoiceMode(settings({ VOICE_MODE: 'pipeline' }), openai, 'gpt-realtime')).toEqual({
      mode: 'pipeline',
    });
  });
  it('realtime: the agent model when the provider serves it, else its default; unavailable without a provider', () => {
    const s = settings({ VOICE_MODE: 'realtime', VOICE_REALTIME_ENABLED: 'true' });
    expect(chooseVoiceMode(s, openai, 'gpt-4o-mini-realtime-preview')).toEqual({
      mode: 'realtime',
      model: 'gpt-4o-mini-realtime-preview',
    });
    expect(chooseVoiceMode(s, openai, 'scripted-1')).toEqual({ mode: 'realtime', model: 'gpt-realtime' });
    expect(chooseVoiceMode(s, null, 'gpt-realtime').mode).toBe('unavailable');
    expect(chooseVoiceMode(s, openai, null).mode).toBe('unavailable');
  });
  it('auto: realtime only when enabled, configured and the agent model is a realtime one', () => {
    const on = settings({ VOICE_MODE: 'auto', VOICE_REALTIME_ENABLED: 'true' });
    expect(chooseVoiceMode(on, openai, 'gpt-realtime')).toEqual({ mode: 'realtime', model: 'gpt-realtime' });
    expect(chooseVoiceMode(on, openai, 'gpt-4o-mini')).toEqual({ mode: 'pipeline' });
    expect(chooseVoiceMode(on, openai, 'surrealtimes')).toEqual({ mode: 'pipeline' });
    expect(chooseVoiceMode(on, null, 'gpt-realtime')).toEqual({ mode: 'pipeline' });
    const off = settings({ VOICE_MODE: 'auto' });
    expect(realtimeProviderOf(off, [openai])).toBeNull();
    expect(realtimeProviderOf(on, [openai])).toBe(openai);
    expect(
      realtimeProviderOf(
        settings({
          VOICE_MODE: 'auto',
          VOICE_REALTIME_ENABLED: 'true',
          VOICE_REALTIME_DEFAULT_PROVIDER: 'other',
        }),
        [openai],
      ),
    ).toBeNull();
  });
});
