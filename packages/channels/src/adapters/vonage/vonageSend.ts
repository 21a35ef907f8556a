import { Messages, SMS as MessagesSms } from '@vonage/messages';
import { SMS } from '@vonage/sms';
import type { ResolvedConnection, SendResult } from '../../types.js';
import { isRecord, isRetryableStatus, str } from '../shared.js';
import type { VonageApi } from './vonageSettings.js';

export const VONAGE_API_HOST = 'https://api.nexmo.com';
export const VONAGE_REST_HOST = 'https://rest.nexmo.com';
/** Per request: a hung Vonage call fails (and is retried) instead of holding a send worker. */
const TIMEOUT_MS = 30_000;

/** One SMS part to send from the connection's number. */
export interface VonagePart {
  to: string;
  text: string;
  /** Our reference, echoed in Vonage's reports (the reply's message id). */
  clientRef: string;
}

type PartResult = { ok: true; ids: string[] } | Extract<SendResult, { ok: false }>;

const PEM_PRIVATE_KEY = /^-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/;

/**
 * Sends through the official SDKs (@vonage/messages, @vonage/sms): the Messages API with the
 * application's JWT (applicationId + privateKey; the SDK signs it), or the SMS API with the API key
 * and secret. `apiBaseUrl` replaces the SDK's host (tests: a stand-in). The SDKs call the global
 * fetch, so ChannelHttp.fetch does not reach them.
 */
export async function sendVonagePart(
  api: VonageApi,
  connection: ResolvedConnection,
  part: VonagePart,
  apiBaseUrl: string | undefined,
): Promise<PartResult> {
  const c = connection.credentials;
  const from = connection.externalIdentifier;
  try {
    if (api === 'messages') {
      // The SDK reads a private key that is a file path from disk: only an inline PEM key is used.
      if (!PEM_PRIVATE_KEY.test((c.privateKey ?? '').trim()))
        return { ok: false, retryable: false, error: 'vonage: privateKey is not a PEM private key' };
      const client = new Messages(
        { applicationId: c.applicationId ?? '', privateKey: c.privateKey ?? '' },
        { apiHost: apiBaseUrl ?? VONAGE_API_HOST, timeout: TIMEOUT_MS },
      );
      const sent = await client.send(
        new MessagesSms({
          channel: 'sms',
          messageType: 'text',
          to: part.to,
          from,
          text: part.text,
          clientRef: part.clientRef.slice(0, 100),
        }),
      );
      return { ok: true, ids: sent.messageUUID === undefined ? [] : [sent.messageUUID] };
    }
    const client = new SMS(
      // privateKey '': the SDK's Auth looks the key up as a file path, and undefined is deprecated there.
      { apiKey: c.apiKey ?? '', apiSecret: c.apiSecret ?? '', privateKey: '' },
      { restHost: apiBaseUrl ?? VONAGE_REST_HOST, timeout: TIMEOUT_MS },
    );
    const sent = await client.send({
      to: part.to,
      from,
      text: part.text,
      // The SMS API's 40-character limit on client-ref.
      clientRef: part.clientRef.slice(0, 40),
      // Outside ASCII the SMS API needs unicode (GSM-7 covers some of it; unicode is always right).
      ...(/^[\x20-\x7e\r\n]*$/.test(part.text) ? {} : { type: 'unicode' }),
    } as Parameters<SMS['send']>[0]);
    return { ok: true, ids: (sent.messages ?? []).map((m) => m.messageId).filter((id) => id !== undefined) };
  } catch (err) {
    return failureOf(err);
  }
}

/** The SMS API's per-message statuses worth a retry: 1 throttled, 5 internal error. */
const RETRYABLE_SMS_STATUSES = new Set(['1', '5']);

/**
 * An SDK error as a SendResult, never its message or request (they hold the URL and the
 * credentials): HTTP errors by status (Messages API problem `title`), SMS API refusals by their
 * per-message status; network failures and timeouts are retryable.
 */
async function failureOf(err: unknown): Promise<Extract<SendResult, { ok: false }>> {
  if (isRecord(err) && err.response instanceof Response) {
    const status = err.response.status;
    const problem = await err.response.json().catch(() => undefined);
    const title = isRecord(problem) ? (str(problem.title) ?? str(problem.type)) : undefined;
    return {
      ok: false,
      retryable: isRetryableStatus(status),
      error: `vonage ${status}${title === undefined ? '' : `: ${title.slice(0, 200)}`}`,
      status,
    };
  }
  if (isRecord(err) && isRecord(err.response) && Array.isArray(err.response.messages)) {
    const failed = err.response.messages.filter((m) => isRecord(m) && m.status !== '0');
    const first = failed[0];
    const code = isRecord(first) ? str(first.status) : undefined;
    const text = isRecord(first) ? (str(first.errorText) ?? str(first['error-text'])) : undefined;
    return {
      ok: false,
      retryable: failed.every((m) => isRecord(m) && RETRYABLE_SMS_STATUSES.has(str(m.status) ?? '')),
      error: `vonage sms status ${code ?? '?'}${text === undefined ? '' : `: ${text.slice(0, 200)}`}`,
    };
  }
  return {
    ok: false,
    retryable: true,
    error: err instanceof Error ? `vonage ${err.name}` : 'vonage send failed',
  };
}
