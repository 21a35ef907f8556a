/**
 * The channel manifest (spec 001 §2.2): one entry per channel type the spec names. Vendor-specific
 * channel type ids are Parley's choice (the spec writes vendors neutrally); docs/channels.md maps
 * each to the spec's wording.
 */
import { type ProviderVariant, providerVariant, providerVariants } from './providers.js';

export const INGRESS_KINDS = ['webhook', 'websocket', 'api', 'smtp', 'sync_webhook', 'none'] as const;
export const DELIVERY_KINDS = ['async_queue', 'sync_response', 'websocket', 'direct_send', 'none'] as const;
export const AUTH_MODES = ['hmac', 'jwt', 'token', 'api_key', 'sdk_auth', 'none'] as const;
export type Ingress = (typeof INGRESS_KINDS)[number];
export type Delivery = (typeof DELIVERY_KINDS)[number];
export type AuthMode = (typeof AUTH_MODES)[number];

/** Channel capabilities (spec 001 §2.2). */
export interface ChannelCapabilities {
  supportsAsync: boolean;
  supportsStreaming: boolean;
  supportsMedia: boolean;
  supportsThreading: boolean;
}

/** A manifest entry (spec 001 §2.2), plus its channel type and capabilities. */
export interface ChannelManifestEntry {
  channelType: string;
  displayName: string;
  /** Channel class of spec 001 §1. */
  category: 'chat' | 'messaging' | 'contact_center' | 'voice' | 'sdk' | 'protocol';
  ingress: Ingress;
  delivery: Delivery;
  authMode: AuthMode;
  responseFormat: string;
  supportsRichOutput: boolean;
  supportsThreading: boolean;
  supportsMedia: boolean;
  supportsStreaming: boolean;
  /** Whether a channel connection (§4.2) can be created for it. */
  isConnectionEligible: boolean;
  isVoice: boolean;
  supportsTypingIndicator: boolean;
  /** Credential names a connection must carry (§4.2). */
  requiredCredentials: string[];
  /** Credential names a connection may carry besides the required ones. */
  optionalCredentials: string[];
  /** Inbound path, with `:identifier` / `:streamId` placeholders; '' when there is no HTTP ingress. */
  webhookPathPattern: string;
  capabilities: ChannelCapabilities;
  /**
   * The provider variants of the channel type (spec 001 §4.1 provider route), each with its own
   * signing, credentials and webhook path; empty when the type has one implementation. The entry's
   * own credentials and path are those of the default variant.
   */
  providers: readonly ProviderVariant[];
}

type EntryInput = Omit<
  ChannelManifestEntry,
  'capabilities' | 'optionalCredentials' | 'webhookPathPattern' | 'providers'
> & {
  optionalCredentials?: string[];
  webhookPathPattern?: string;
};

const webhook = (type: string) => `/api/v1/channels/${type}/webhook/:identifier`;
const hooks = (type: string) => `/api/v1/channels/${type}/hooks/:streamId`;

/** The adapters' chat defaults: webhook in, async queue out. */
const chat = {
  category: 'chat',
  ingress: 'webhook',
  delivery: 'async_queue',
  supportsStreaming: false,
  isConnectionEligible: true,
  isVoice: false,
} as const;

/** Browser and app channels over the SDK's websocket: no webhook, no connection, streamed. */
const sdkSocket = {
  ...chat,
  ingress: 'websocket',
  delivery: 'websocket',
  authMode: 'sdk_auth',
  supportsThreading: false,
  supportsStreaming: true,
  isConnectionEligible: false,
  webhookPathPattern: '',
} as const;

/** Real-time audio sessions over the SDK's websocket. */
const realtimeAudio = {
  ...sdkSocket,
  category: 'voice',
  responseFormat: 'audio',
  supportsRichOutput: false,
  supportsMedia: false,
  isVoice: true,
  supportsTypingIndicator: false,
} as const;

const ENTRIES: EntryInput[] = [
  {
    ...chat,
    channelType: 'slack',
    displayName: 'Slack',
    authMode: 'hmac',
    responseFormat: 'mrkdwn',
    supportsRichOutput: true,
    supportsThreading: true,
    supportsMedia: true,
    supportsTypingIndicator: false,
    requiredCredentials: ['botToken', 'signingSecret'],
  },
  {
    ...chat,
    channelType: 'msteams',
    displayName: 'Microsoft Teams',
    authMode: 'jwt',
    responseFormat: 'markdown',
    supportsRichOutput: true,
    supportsThreading: true,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['appId', 'clientSecret', 'tenantId'],
  },
  {
    ...chat,
    channelType: 'whatsapp',
    displayName: 'WhatsApp Business',
    authMode: 'hmac',
    responseFormat: 'text',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['accessToken', 'appSecret', 'verifyToken'],
  },
  {
    ...chat,
    channelType: 'messenger',
    displayName: 'Facebook Messenger',
    authMode: 'hmac',
    responseFormat: 'text',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['accessToken', 'appSecret', 'verifyToken'],
  },
  {
    ...chat,
    channelType: 'instagram',
    displayName: 'Instagram Direct',
    authMode: 'hmac',
    responseFormat: 'text',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['accessToken', 'appSecret', 'verifyToken'],
  },
  {
    ...chat,
    channelType: 'telegram',
    displayName: 'Telegram',
    authMode: 'token',
    responseFormat: 'text',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['botToken'],
    // Generated when absent; Telegram echoes it in X-Telegram-Bot-Api-Secret-Token.
    optionalCredentials: ['webhookSecret'],
  },
  {
    ...chat,
    channelType: 'line',
    displayName: 'LINE',
    authMode: 'hmac',
    responseFormat: 'text',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['channelAccessToken', 'channelSecret'],
  },
  {
    ...chat,
    category: 'messaging',
    channelType: 'sms',
    displayName: 'SMS (telephony provider)',
    authMode: 'hmac',
    responseFormat: 'text',
    supportsRichOutput: false,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: false,
    requiredCredentials: ['accountSid', 'authToken'],
  },
  {
    ...chat,
    category: 'messaging',
    channelType: 'email',
    displayName: 'Email',
    ingress: 'smtp',
    authMode: 'none',
    responseFormat: 'text',
    supportsRichOutput: false,
    supportsThreading: true,
    supportsMedia: true,
    supportsTypingIndicator: false,
    // SMTP or cloud-mail settings: which ones depends on the outbound transport (docs/channels.md).
    requiredCredentials: [],
    optionalCredentials: [
      'smtpUsername',
      'smtpPassword',
      'graphClientId',
      'graphClientSecret',
      'graphTenantId',
    ],
    webhookPathPattern: '',
  },
  {
    ...chat,
    category: 'contact_center',
    channelType: 'zendesk',
    displayName: 'Zendesk (support platform)',
    authMode: 'hmac',
    responseFormat: 'markdown',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: ['appId', 'keyId', 'keySecret'],
    optionalCredentials: ['webhookSecret'],
  },
  {
    ...chat,
    category: 'contact_center',
    channelType: 'contact_center',
    displayName: 'Contact centre (synchronous)',
    ingress: 'sync_webhook',
    delivery: 'sync_response',
    authMode: 'token',
    responseFormat: 'json',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: false,
    supportsTypingIndicator: false,
    requiredCredentials: ['clientSecret'],
    webhookPathPattern: hooks('contact_center'),
  },
  {
    ...chat,
    category: 'voice',
    channelType: 'vxml',
    displayName: 'VoiceXML',
    ingress: 'sync_webhook',
    delivery: 'sync_response',
    authMode: 'token',
    responseFormat: 'vxml',
    supportsRichOutput: false,
    supportsThreading: false,
    supportsMedia: false,
    isVoice: true,
    supportsTypingIndicator: false,
    requiredCredentials: ['inboundToken'],
    webhookPathPattern: hooks('vxml'),
  },
  {
    ...chat,
    category: 'voice',
    channelType: 'voice',
    displayName: 'Voice (telephony provider)',
    delivery: 'websocket',
    authMode: 'hmac',
    responseFormat: 'audio',
    supportsRichOutput: false,
    supportsThreading: false,
    supportsMedia: false,
    supportsStreaming: true,
    isVoice: true,
    supportsTypingIndicator: false,
    requiredCredentials: ['accountSid', 'authToken'],
  },
  {
    ...chat,
    category: 'voice',
    channelType: 'voice_gateway',
    displayName: 'Voice gateway (audio)',
    ingress: 'websocket',
    delivery: 'websocket',
    authMode: 'token',
    responseFormat: 'audio',
    supportsRichOutput: false,
    supportsThreading: false,
    supportsMedia: false,
    supportsStreaming: true,
    isVoice: true,
    supportsTypingIndicator: false,
    requiredCredentials: ['inboundAuthToken'],
    // The gateway's WebSocket (docs/voice.md "Voice gateway"), authenticated by inboundAuthToken.
    webhookPathPattern: '/api/v1/channels/voice_gateway/stream/:identifier',
  },
  {
    ...realtimeAudio,
    channelType: 'webrtc',
    displayName: 'Real-time voice (WebRTC)',
    requiredCredentials: [],
  },
  {
    ...realtimeAudio,
    channelType: 'voice_realtime',
    displayName: 'Realtime audio (native audio model)',
    requiredCredentials: [],
  },
  {
    ...sdkSocket,
    category: 'sdk',
    channelType: 'web',
    displayName: 'Web chat (SDK)',
    responseFormat: 'markdown',
    supportsRichOutput: true,
    supportsMedia: true,
    supportsTypingIndicator: true,
    requiredCredentials: [],
  },
  {
    ...sdkSocket,
    category: 'sdk',
    channelType: 'ag_ui',
    displayName: 'AG-UI',
    responseFormat: 'ag_ui_events',
    supportsRichOutput: true,
    supportsMedia: false,
    supportsTypingIndicator: true,
    requiredCredentials: [],
  },
  {
    ...chat,
    category: 'protocol',
    channelType: 'a2a',
    displayName: 'Agent-to-agent (A2A)',
    ingress: 'api',
    authMode: 'api_key',
    responseFormat: 'json',
    supportsRichOutput: false,
    supportsThreading: false,
    supportsMedia: false,
    supportsTypingIndicator: false,
    requiredCredentials: [],
    webhookPathPattern: '',
  },
  {
    ...chat,
    category: 'protocol',
    channelType: 'http_async',
    displayName: 'HTTP async (webhook callback)',
    ingress: 'api',
    authMode: 'api_key',
    responseFormat: 'json',
    // The callback's channel_output is text; the reply's structure is not carried (docs/http-async.md).
    supportsRichOutput: false,
    supportsThreading: false,
    supportsMedia: false,
    // Its "connections" are the webhook subscriptions (their own API, secrets per subscription).
    isConnectionEligible: false,
    supportsTypingIndicator: false,
    requiredCredentials: [],
    webhookPathPattern: '/api/v1/channels/http-async/message',
  },
  {
    ...chat,
    category: 'protocol',
    channelType: 'http',
    displayName: 'HTTP (synchronous)',
    ingress: 'api',
    delivery: 'sync_response',
    authMode: 'api_key',
    responseFormat: 'json',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: false,
    isConnectionEligible: false,
    supportsTypingIndicator: false,
    requiredCredentials: [],
    webhookPathPattern: '/api/v1/chat/send',
  },
  {
    ...chat,
    category: 'protocol',
    channelType: 'api',
    displayName: 'API (synchronous)',
    ingress: 'api',
    delivery: 'sync_response',
    authMode: 'api_key',
    responseFormat: 'json',
    supportsRichOutput: true,
    supportsThreading: false,
    supportsMedia: false,
    supportsStreaming: true,
    isConnectionEligible: false,
    supportsTypingIndicator: false,
    requiredCredentials: [],
    webhookPathPattern: '/api/v1/chat/send',
  },
];

const freeze = (input: EntryInput): ChannelManifestEntry =>
  Object.freeze({
    ...input,
    providers: providerVariants(input.channelType),
    optionalCredentials: input.optionalCredentials ?? [],
    webhookPathPattern: input.webhookPathPattern ?? webhook(input.channelType),
    capabilities: Object.freeze({
      supportsAsync: input.delivery === 'async_queue',
      supportsStreaming: input.supportsStreaming,
      supportsMedia: input.supportsMedia,
      supportsThreading: input.supportsThreading,
    }),
  });

/** Every channel type, in the order of docs/channels.md. */
export const CHANNEL_MANIFEST: readonly ChannelManifestEntry[] = Object.freeze(ENTRIES.map(freeze));

export const CHANNEL_TYPES: readonly string[] = CHANNEL_MANIFEST.map((e) => e.channelType);

const byType = new Map(CHANNEL_MANIFEST.map((e) => [e.channelType, e]));

/** The manifest entry of a channel type, or undefined. */
export const manifestEntry = (channelType: string): ChannelManifestEntry | undefined =>
  byType.get(channelType);

/**
 * The inbound webhook path of a connection, from its provider's pattern (else its channel type's);
 * null without HTTP ingress.
 */
export function webhookPathOf(
  channelType: string,
  externalIdentifier: string,
  provider?: string | null,
): string | null {
  const entry = byType.get(channelType);
  if (entry === undefined) return null;
  const pattern = providerVariant(channelType, provider)?.webhookPathPattern ?? entry.webhookPathPattern;
  if (pattern === '') return null;
  if (!pattern.includes(':identifier')) return pattern;
  return pattern.replace(':identifier', encodeURIComponent(externalIdentifier));
}
