import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { externalIdentifierSchema } from '../connections/schema.js';
import {
  AUTH_MODES,
  CHANNEL_MANIFEST,
  CHANNEL_TYPES,
  DELIVERY_KINDS,
  INGRESS_KINDS,
  manifestEntry,
  webhookPathOf,
} from './manifest.js';
import { adapterKey, providerVariant, providerVariants } from './providers.js';

describe('channel manifest (spec 001 §2.2)', () => {
  it('has more than twenty channel types, each once', () => {
    expect(CHANNEL_MANIFEST.length).toBeGreaterThan(20);
    expect(new Set(CHANNEL_TYPES).size).toBe(CHANNEL_TYPES.length);
  });

  it('names every channel the spec and issue 6 name', () => {
    for (const type of [
      'slack',
      'msteams',
      'whatsapp',
      'messenger',
      'instagram',
      'telegram',
      'line',
      'sms',
      'email',
      'zendesk',
      'contact_center',
      'vxml',
      'voice',
      'voice_gateway',
      'webrtc',
      'web',
      'ag_ui',
      'a2a',
      'http_async',
      'http',
      'api',
    ]) {
      expect(manifestEntry(type), type).toBeDefined();
    }
  });

  it('gives every entry the fields of §2.2 with allowed values', () => {
    for (const e of CHANNEL_MANIFEST) {
      expect(e.channelType).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      expect(e.displayName.length).toBeGreaterThan(0);
      expect(INGRESS_KINDS).toContain(e.ingress);
      expect(DELIVERY_KINDS).toContain(e.delivery);
      expect(AUTH_MODES).toContain(e.authMode);
      expect(e.responseFormat.length).toBeGreaterThan(0);
      for (const flag of [
        e.supportsRichOutput,
        e.supportsThreading,
        e.supportsMedia,
        e.supportsStreaming,
        e.isConnectionEligible,
        e.isVoice,
        e.supportsTypingIndicator,
      ]) {
        expect(typeof flag).toBe('boolean');
      }
      expect(e.capabilities).toEqual({
        supportsAsync: e.delivery === 'async_queue',
        supportsStreaming: e.supportsStreaming,
        supportsMedia: e.supportsMedia,
        supportsThreading: e.supportsThreading,
      });
      for (const c of [...e.requiredCredentials, ...e.optionalCredentials])
        expect(c).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(e.requiredCredentials.filter((c) => e.optionalCredentials.includes(c))).toEqual([]);
      if (e.ingress === 'webhook')
        expect(e.webhookPathPattern).toBe(`/api/v1/channels/${e.channelType}/webhook/:identifier`);
      if (e.ingress === 'sync_webhook') {
        expect(e.webhookPathPattern).toBe(`/api/v1/channels/${e.channelType}/hooks/:streamId`);
        expect(e.delivery).toBe('sync_response');
      }
      if (e.ingress === 'smtp') expect(e.webhookPathPattern).toBe('');
      // A websocket ingress advertises its socket only when connections open it (the voice gateway).
      if (e.ingress === 'websocket')
        expect(e.webhookPathPattern).toBe(
          e.isConnectionEligible ? `/api/v1/channels/${e.channelType}/stream/:identifier` : '',
        );
      if (e.authMode === 'sdk_auth') expect(e.isConnectionEligible).toBe(false);
    }
  });

  it('follows the typical combinations of §2.2', () => {
    const chat = ['slack', 'msteams', 'whatsapp', 'messenger', 'instagram', 'telegram', 'line'];
    for (const t of chat)
      expect(manifestEntry(t)).toMatchObject({ ingress: 'webhook', delivery: 'async_queue' });
    expect(manifestEntry('email')).toMatchObject({ ingress: 'smtp', delivery: 'async_queue' });
    expect(manifestEntry('vxml')).toMatchObject({
      ingress: 'sync_webhook',
      delivery: 'sync_response',
      isVoice: true,
    });
    for (const t of ['a2a', 'http_async'])
      expect(manifestEntry(t)).toMatchObject({ ingress: 'api', delivery: 'async_queue' });
    for (const t of ['http', 'api']) expect(manifestEntry(t)).toMatchObject({ delivery: 'sync_response' });
    for (const t of ['web', 'ag_ui'])
      expect(manifestEntry(t)).toMatchObject({ ingress: 'websocket', authMode: 'sdk_auth' });
    expect(manifestEntry('whatsapp')?.requiredCredentials).toEqual([
      'accessToken',
      'appSecret',
      'verifyToken',
    ]);
    expect(manifestEntry('slack')?.requiredCredentials).toEqual(['botToken', 'signingSecret']);
    expect(manifestEntry('telegram')?.requiredCredentials).toEqual(['botToken']);
  });

  it('builds webhook paths from the pattern', () => {
    expect(webhookPathOf('slack', 'T1:A2')).toBe('/api/v1/channels/slack/webhook/T1%3AA2');
    expect(webhookPathOf('email', 'x@y')).toBeNull();
    expect(webhookPathOf('nope', 'x')).toBeNull();
    expect(webhookPathOf('http_async', 'x')).toBe('/api/v1/channels/http-async/message');
  });

  it('lists provider variants: one default each, their own credentials and paths, the entry the default’s', () => {
    for (const e of CHANNEL_MANIFEST) {
      expect(e.providers).toEqual(providerVariants(e.channelType));
      if (e.providers.length === 0) continue;
      const defaults = e.providers.filter((v) => v.default);
      expect(defaults).toHaveLength(1);
      expect(e.requiredCredentials).toEqual(defaults[0]?.requiredCredentials);
      expect(e.webhookPathPattern).toBe(defaults[0]?.webhookPathPattern);
      for (const v of e.providers) {
        expect(v.provider).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
        expect(AUTH_MODES).toContain(v.authMode);
        expect(v.webhookPathPattern.startsWith(`/api/v1/channels/${e.channelType}/`)).toBe(true);
        // A provider's webhook, or its voice gateway socket (byoc_sip).
        if (!v.default)
          expect(v.webhookPathPattern).toBe(
            v.authMode === 'token'
              ? `/api/v1/channels/${e.channelType}/${v.provider}/stream/:identifier`
              : `/api/v1/channels/${e.channelType}/${v.provider}/webhook`,
          );
      }
    }
    expect(manifestEntry('sms')?.providers.map((v) => v.provider)).toEqual(['twilio', 'vonage']);
    expect(manifestEntry('slack')?.providers).toEqual([]);
    expect(manifestEntry('voice')?.providers.map((v) => [v.provider, v.requiredCredentials])).toEqual([
      ['twilio', ['accountSid', 'authToken']],
      ['byoc_sip', ['inboundAuthToken']],
    ]);
  });

  it('resolves a connection’s variant and adapter key', () => {
    expect(providerVariant('sms', undefined)?.provider).toBe('twilio');
    expect(providerVariant('sms', 'vonage')?.provider).toBe('vonage');
    expect(providerVariant('sms', 'pigeon')).toBeUndefined();
    expect(providerVariant('slack', null)).toBeNull();
    expect(providerVariant('slack', 'cloud')).toBeUndefined();
    expect(adapterKey('sms', 'vonage')).toBe('sms/vonage');
    expect(adapterKey('slack', null)).toBe('slack');
    expect(webhookPathOf('sms', '447700900000', 'vonage')).toBe('/api/v1/channels/sms/vonage/webhook');
    expect(webhookPathOf('sms', '+15017122661', 'twilio')).toBe(
      '/api/v1/channels/sms/webhook/%2B15017122661',
    );
  });

  it('is frozen', () => {
    expect(Object.isFrozen(CHANNEL_MANIFEST)).toBe(true);
    expect(Object.isFrozen(CHANNEL_MANIFEST[0])).toBe(true);
  });

  it('gives every accepted identifier a one-segment webhook path that decodes back to it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 256, unit: 'grapheme' }), (identifier) => {
        if (!externalIdentifierSchema.safeParse(identifier).success) {
          expect(/[\s/?#%\\]/u.test(identifier) || identifier.length > 256).toBe(true);
          return;
        }
        const path = webhookPathOf('whatsapp', identifier)!;
        const segment = path.slice('/api/v1/channels/whatsapp/webhook/'.length);
        expect(segment).not.toContain('/');
        expect(decodeURIComponent(segment)).toBe(identifier);
      }),
    );
  });
});
