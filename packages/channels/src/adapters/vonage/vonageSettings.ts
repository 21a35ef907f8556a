import { z } from 'zod';

export const VONAGE_PROVIDER = 'vonage';

/**
 * The two Vonage APIs an account can route a number's SMS through (the dashboard's "SMS settings"):
 * the Messages API (JSON webhooks signed with a JWT, replies with an application's JWT) or the
 * older SMS API (webhooks signed with a `sig` parameter, replies with the API key and secret).
 */
export const VONAGE_APIS = ['messages', 'sms'] as const;
export type VonageApi = (typeof VONAGE_APIS)[number];

/**
 * The SMS API's signature methods, as the dashboard's "Signature method" names them and the
 * Vonage SDKs spell them: `md5hash` (MD5 of the sorted parameters followed by the secret, the
 * dashboard's default) or an HMAC keyed with the secret.
 */
export const VONAGE_SIGNATURE_METHODS = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'] as const;
export type VonageSignatureMethod = (typeof VONAGE_SIGNATURE_METHODS)[number];

/** Credentials each API needs beside `signatureSecret`. */
export const VONAGE_API_CREDENTIALS: Readonly<Record<VonageApi, readonly string[]>> = {
  messages: ['applicationId', 'privateKey'],
  sms: ['apiKey', 'apiSecret'],
};

/** A Vonage SMS connection's settings (besides `apiBaseUrl`, checked for every connection). */
export const vonageSettingsSchema = z
  .looseObject({
    vonageApi: z.enum(VONAGE_APIS).optional().describe('Default messages'),
    signatureMethod: z.enum(VONAGE_SIGNATURE_METHODS).optional().describe('SMS API only; default md5hash'),
  })
  .refine((s) => s.signatureMethod === undefined || s.vonageApi === 'sms', {
    message:
      'signatureMethod applies to the SMS API only (vonageApi: sms); the Messages API signs with a JWT',
    path: ['signatureMethod'],
  });

export interface VonageSettings {
  api: VonageApi;
  signatureMethod: VonageSignatureMethod;
}

/** The connection's settings with their defaults (unparseable values fall back to the defaults). */
export function vonageSettingsOf(settings: Record<string, unknown>): VonageSettings {
  const parsed = vonageSettingsSchema.safeParse(settings);
  const data = parsed.success ? parsed.data : {};
  return { api: data.vonageApi ?? 'messages', signatureMethod: data.signatureMethod ?? 'md5hash' };
}
