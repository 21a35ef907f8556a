import type { AuthMode } from './manifest.js';

/**
 * A provider variant of a channel type (spec 001 §4.1: `POST /api/v1/channels/{channelType}/{provider}/webhook`):
 * another platform behind the same channel type, with its own request signing, credentials and
 * API. A connection names its provider when it is created (docs/channels.md "Provider variants").
 */
export interface ProviderVariant {
  provider: string;
  displayName: string;
  authMode: AuthMode;
  /** Credential names every connection of this provider carries. */
  requiredCredentials: string[];
  /** Credential names it may carry (which ones a connection needs can depend on its settings). */
  optionalCredentials: string[];
  /** Where the provider sends its webhooks (`:identifier`: the connection's identifier). */
  webhookPathPattern: string;
  /** The provider a connection gets when it names none. */
  default: boolean;
}

/** Channel types with more than one provider; every other type has one implementation and no variants. */
const VARIANTS: Readonly<Record<string, readonly ProviderVariant[]>> = {
  voice: [
    {
      provider: 'twilio',
      displayName: 'Twilio-style telephony provider (media streams)',
      authMode: 'hmac',
      requiredCredentials: ['accountSid', 'authToken'],
      optionalCredentials: [],
      // Answers TwiML that connects the call's media stream (docs/voice.md).
      webhookPathPattern: '/api/v1/channels/voice/webhook/:identifier',
      default: true,
    },
    {
      provider: 'byoc_sip',
      displayName: 'Bring your own carrier (SIP gateway)',
      // The SIP gateway opens the voice gateway socket with the connection's inboundAuthToken.
      authMode: 'token',
      requiredCredentials: ['inboundAuthToken'],
      optionalCredentials: [],
      webhookPathPattern: '/api/v1/channels/voice/byoc_sip/stream/:identifier',
      default: false,
    },
  ],
  sms: [
    {
      provider: 'twilio',
      displayName: 'Twilio-style telephony provider',
      authMode: 'hmac',
      requiredCredentials: ['accountSid', 'authToken'],
      optionalCredentials: [],
      webhookPathPattern: '/api/v1/channels/sms/webhook/:identifier',
      default: true,
    },
    {
      provider: 'vonage',
      displayName: 'Vonage (Messages API or SMS API)',
      // The Messages API's signed-webhook JWT; a connection on the SMS API checks its `sig` instead.
      authMode: 'jwt',
      requiredCredentials: ['signatureSecret'],
      // Messages API: applicationId + privateKey; SMS API: apiKey + apiSecret (checked by channelRules).
      optionalCredentials: ['applicationId', 'privateKey', 'apiKey', 'apiSecret'],
      webhookPathPattern: '/api/v1/channels/sms/vonage/webhook',
      default: false,
    },
  ],
};

const freezeVariant = (v: ProviderVariant): ProviderVariant =>
  Object.freeze({
    ...v,
    requiredCredentials: Object.freeze([...v.requiredCredentials]) as string[],
    optionalCredentials: Object.freeze([...v.optionalCredentials]) as string[],
  });

const FROZEN: Readonly<Record<string, readonly ProviderVariant[]>> = Object.freeze(
  Object.fromEntries(
    Object.entries(VARIANTS).map(([type, variants]) => [type, Object.freeze(variants.map(freezeVariant))]),
  ),
);

/** The provider variants of a channel type; empty when it has a single implementation. */
export const providerVariants = (channelType: string): readonly ProviderVariant[] =>
  FROZEN[channelType] ?? [];

/**
 * The variant a connection uses: `provider` when given (undefined when the type has no such
 * provider), else the type's default; null for a type without variants (then `provider` must be absent).
 */
export function providerVariant(
  channelType: string,
  provider: string | null | undefined,
): ProviderVariant | null | undefined {
  const variants = providerVariants(channelType);
  if (variants.length === 0) return provider === undefined || provider === null ? null : undefined;
  if (provider === undefined || provider === null) return variants.find((v) => v.default);
  return variants.find((v) => v.provider === provider);
}

/**
 * The key of the adapter that serves a connection in an adapter map: `<type>/<provider>` for a
 * provider variant, the channel type otherwise (the default variant is registered under both).
 */
export const adapterKey = (channelType: string, provider: string | null | undefined): string =>
  provider === undefined || provider === null ? channelType : `${channelType}/${provider}`;
