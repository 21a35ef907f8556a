import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { DeliveryReceipt, OutgoingMessage, ResolvedConnection, SendResult } from '../../types.js';
import { headerValue } from '../shared.js';
import { toSmsOutput } from '../sms/index.js';
import { storedOutput } from '../storedOutput.js';
import { webhookBodyProblem } from '../webhookBody.js';
import { parseVonageInbound, parseVonageReceipts, smsApiParams, vonageNumberOf } from './vonagePayload.js';
import { sendVonagePart } from './vonageSend.js';
import { VONAGE_PROVIDER, vonageSettingsOf } from './vonageSettings.js';
import {
  VONAGE_WEBHOOK_MAX_AGE_SECONDS,
  verifyMessagesWebhook,
  verifySmsApiWebhook,
} from './vonageSignature.js';

/** The Messages API's limit on an SMS text (the SMS API concatenates up to the same length). */
export const VONAGE_SMS_MAX_TEXT = 1000;

export interface VonageAdapterOptions {
  /** The clock for message times Vonage does not give and for the signatures' window. */
  now?: () => Date;
  /**
   * How far (seconds, either way) a webhook's signed time (JWT `iat`, SMS API `timestamp`) may be
   * from `now` (VONAGE_WEBHOOK_MAX_AGE_SECONDS; default 300).
   */
  signatureMaxAgeSeconds?: number;
}

export interface VonageAdapter extends ChannelAdapter {
  readonly provider: typeof VONAGE_PROVIDER;
  /** The Vonage number a webhook is for (the connection identifier), read from the body. */
  connectionIdentifier(req: InboundRequest): string | null;
  parseReceipts(req: InboundRequest, connection: ResolvedConnection): DeliveryReceipt[];
}

/**
 * SMS through Vonage, the `vonage` provider of channel type `sms` (docs/channels.md "SMS through
 * Vonage"), on the provider route `/api/v1/channels/sms/vonage/webhook`. The connection's
 * `vonageApi` setting says which Vonage API its number uses, and so how webhooks are signed (the
 * Messages API's JWT, or the SMS API's `sig` with `signatureMethod`), what they look like, and
 * which API sends the replies. A request signed the other way is refused: an account sends one.
 */
export const createVonageAdapter = (options: VonageAdapterOptions = {}): VonageAdapter => {
  const now = options.now ?? (() => new Date());
  const maxAgeSeconds = options.signatureMaxAgeSeconds ?? VONAGE_WEBHOOK_MAX_AGE_SECONDS;
  const parseOptions = (connection: ResolvedConnection) => ({
    number: connection.externalIdentifier,
    now: now(),
  });

  return {
    channelType: 'sms',
    provider: VONAGE_PROVIDER,

    // The Messages API posts JSON; the SMS API, JSON or a form.
    checkBody: (req) => webhookBodyProblem(req, ['json', 'form']),

    verifyRequest(req, connection) {
      const secret = connection.credentials.signatureSecret ?? '';
      const settings = vonageSettingsOf(connection.settings);
      const window = { now: now(), maxAgeSeconds };
      if (settings.api === 'messages')
        return verifyMessagesWebhook(headerValue(req.headers, 'authorization'), req.rawBody, secret, window);
      return verifySmsApiWebhook(smsApiParams(req.body), secret, settings.signatureMethod, window);
    },

    parseIncoming(req, connection) {
      return parseVonageInbound(
        vonageSettingsOf(connection.settings).api,
        req.body,
        parseOptions(connection),
      );
    },

    parseReceipts(req, connection) {
      return parseVonageReceipts(
        vonageSettingsOf(connection.settings).api,
        req.body,
        parseOptions(connection),
      );
    },

    connectionIdentifier(req) {
      return vonageNumberOf(req.body);
    },

    transformOutput(reply) {
      return toSmsOutput(reply, VONAGE_SMS_MAX_TEXT);
    },

    async sendResponse(message: OutgoingMessage, connection, http): Promise<SendResult> {
      const api = vonageSettingsOf(connection.settings).api;
      const output = storedOutput(message, 'bodies', (reply) => toSmsOutput(reply, VONAGE_SMS_MAX_TEXT));
      const ids: string[] = [];
      for (const text of output.bodies) {
        const part = { to: message.externalSessionKey, text, clientRef: message.messageId };
        const sent = await sendVonagePart(api, connection, part, http.apiBaseUrl);
        if (!sent.ok) return sent;
        ids.push(...sent.ids);
      }
      const last = ids.at(-1);
      return last === undefined
        ? { ok: true }
        : { ok: true, externalMessageId: last, externalMessageIds: ids };
    },
  };
};
