import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvedWidgetConfigSchema, resolveWidgetConfig, WIDGET_DEFAULTS } from './widgetConfig.js';

const all = { chat: true, voice: true };

describe('resolveWidgetConfig', () => {
  it('takes each valid stored field and the default for each missing or invalid one', () => {
    expect(resolveWidgetConfig(null, { chat: true, voice: false })).toEqual(WIDGET_DEFAULTS);
    expect(
      resolveWidgetConfig(
        { position: 'middle', welcomeMessage: 'Hello', theme: { 'bad key': 1 }, extra: true },
        { chat: true, voice: false },
      ),
    ).toEqual({ ...WIDGET_DEFAULTS, welcomeMessage: 'Hello' });
  });

  it('lets voice follow the key when the channel does not say, and never exceed it', () => {
    expect(resolveWidgetConfig({}, all).voiceEnabled).toBe(true);
    expect(resolveWidgetConfig({ voiceEnabled: false }, all).voiceEnabled).toBe(false);
    expect(
      resolveWidgetConfig({ voiceEnabled: true, mode: 'voice' }, { chat: true, voice: false }),
    ).toMatchObject({
      voiceEnabled: false,
      mode: 'chat',
    });
    expect(resolveWidgetConfig({ mode: 'unified' }, { chat: false, voice: true })).toMatchObject({
      chatEnabled: false,
      mode: 'voice',
    });
  });

  it('always answers a valid §2.5 config within the permissions, whatever is stored', () => {
    const stored = fc.oneof(
      fc.anything(),
      fc.record(
        {
          mode: fc.oneof(fc.constantFrom('chat', 'voice', 'unified'), fc.anything()),
          position: fc.oneof(fc.constantFrom('bottom-right', 'top-left'), fc.string()),
          theme: fc.oneof(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string()), fc.anything()),
          welcomeMessage: fc.oneof(fc.string(), fc.integer()),
          voiceEnabled: fc.oneof(fc.boolean(), fc.anything()),
          chatEnabled: fc.oneof(fc.boolean(), fc.anything()),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(stored, fc.boolean(), fc.boolean(), (value, chat, voice) => {
        const config = resolveWidgetConfig(value, { chat, voice });
        expect(resolvedWidgetConfigSchema.safeParse(config).success).toBe(true);
        if (!chat) expect(config.chatEnabled).toBe(false);
        if (!voice) expect(config.voiceEnabled).toBe(false);
        if (config.mode === 'voice') expect(config.voiceEnabled).toBe(true);
        if (config.mode === 'unified') expect(config.chatEnabled && config.voiceEnabled).toBe(true);
      }),
    );
  });
});
