import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_THEME_ENTRIES,
  SDK_CHANNEL_PAGE_MAX,
  sdkChannelInputSchema,
  sdkChannelPageSchema,
  sdkChannelPatchSchema,
  widgetConfigSchema,
} from './sdkChannelSchema.js';

describe('SDK channel page query', () => {
  it('defaults to limit 50, offset 0', () => {
    expect(sdkChannelPageSchema.parse({})).toEqual({ limit: 50, offset: 0 });
  });

  it('takes every limit in 1..200 and offset >= 0 written as decimal strings', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: SDK_CHANNEL_PAGE_MAX }), fc.nat(), (limit, offset) => {
        expect(sdkChannelPageSchema.parse({ limit: String(limit), offset: String(offset) })).toEqual({
          limit,
          offset,
        });
      }),
    );
  });

  it('refuses limits outside 1..200, negative or fractional numbers and non-numbers', () => {
    const badLimit = fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: SDK_CHANNEL_PAGE_MAX + 1 }));
    fc.assert(
      fc.property(badLimit, (limit) => {
        expect(sdkChannelPageSchema.safeParse({ limit: String(limit) }).success).toBe(false);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ max: -1 }), (offset) => {
        expect(sdkChannelPageSchema.safeParse({ offset: String(offset) }).success).toBe(false);
      }),
    );
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 199, noNaN: true }).filter((n) => !Number.isInteger(n)),
        (limit) => {
          expect(sdkChannelPageSchema.safeParse({ limit: String(limit) }).success).toBe(false);
        },
      ),
    );
    for (const limit of ['', 'abc', '1x', 'NaN', 'Infinity']) {
      expect(sdkChannelPageSchema.safeParse({ limit }).success).toBe(false);
    }
    expect(sdkChannelPageSchema.safeParse({ page: '2' }).success).toBe(false);
  });
});

describe('widget config', () => {
  it('takes the §2.5 fields, every one optional, and refuses unknown keys', () => {
    expect(widgetConfigSchema.parse({})).toEqual({});
    const full = {
      mode: 'voice',
      position: 'bottom-right',
      theme: { primaryColor: '#123456', 'font-family': 'Inter', radius: 8, dark: false },
      welcomeMessage: '',
      placeholderText: 'Type…',
      voiceEnabled: true,
      chatEnabled: true,
    };
    expect(widgetConfigSchema.parse(full)).toEqual(full);
    for (const bad of [
      { welcomeMesage: 'typo' },
      { mode: 'video' },
      { position: 'center' },
      { theme: { nested: { colour: 'red' } } },
      { theme: { '1bad': 'x' } },
      { theme: Object.fromEntries(Array.from({ length: MAX_THEME_ENTRIES + 1 }, (_, i) => [`k${i}`, i])) },
      { welcomeMessage: 'x'.repeat(2001) },
      { placeholderText: 'x'.repeat(201) },
      { voiceEnabled: 'yes' },
    ]) {
      expect(widgetConfigSchema.safeParse(bad).success, JSON.stringify(bad).slice(0, 60)).toBe(false);
    }
  });
});

describe('SDK channel bodies', () => {
  const key = 'pkk_0123456789abcdef';
  it('create: name, channelType and publicApiKeyId required; the rest defaults', () => {
    expect(sdkChannelInputSchema.parse({ name: ' W ', channelType: 'api', publicApiKeyId: key })).toEqual({
      name: 'W',
      channelType: 'api',
      publicApiKeyId: key,
      config: {},
      isActive: true,
      environment: 'production',
      followEnvironment: true,
    });
    for (const bad of [
      { channelType: 'web', publicApiKeyId: key },
      { name: 'W', publicApiKeyId: key },
      { name: 'W', channelType: 'web' },
      { name: 'W', channelType: 'sms', publicApiKeyId: key },
      { name: 'W', channelType: 'web', publicApiKeyId: 'pk_live' },
      { name: '', channelType: 'web', publicApiKeyId: key },
      { name: 'W', channelType: 'web', publicApiKeyId: key, environment: 'test' },
      { name: 'W', channelType: 'web', publicApiKeyId: key, tenantId: 't' },
    ]) {
      expect(sdkChannelInputSchema.safeParse(bad).success).toBe(false);
    }
  });

  it('patch: every field optional, channelType fixed, deploymentId nullable', () => {
    expect(sdkChannelPatchSchema.parse({})).toEqual({});
    expect(sdkChannelPatchSchema.parse({ deploymentId: null })).toEqual({ deploymentId: null });
    expect(sdkChannelPatchSchema.safeParse({ channelType: 'web' }).success).toBe(false);
    expect(sdkChannelPatchSchema.safeParse({ name: null }).success).toBe(false);
  });
});
