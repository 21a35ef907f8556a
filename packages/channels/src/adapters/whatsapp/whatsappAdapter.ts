import { constantTimeEqual } from '@parley/platform';
import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { ChannelHttp, OutgoingMessage, ResolvedConnection, SendResult } from '../../types.js';
import { jsonWebhook } from '../jsonWebhook.js';
import {
  headerValue,
  hmacSha256Hex,
  isRecord,
  isRetryableStatus,
  type PlatformResponse,
  postJson,
  str,
} from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { parseWhatsAppPayload, whatsAppPhoneNumberId } from './whatsappPayload.js';
import { toWhatsAppOutput } from './whatsappTransform.js';

export const WHATSAPP_CHANNEL_TYPE = 'whatsapp';
export const WHATSAPP_API_BASE_URL = 'https://graph.facebook.com/v26.0';
/** Connection credentials: Graph API access token, Meta app secret, webhook verify token. */
export const WHATSAPP_CREDENTIALS = ['accessToken', 'appSecret', 'verifyToken'] as const;

/** X-Hub-Signature-256: `sha256=` + hex HMAC-SHA256 of the raw body with the app secret. */
export const verifyMetaSignature = (
  rawBody: Buffer,
  header: string | undefined,
  appSecret: string,
): boolean => {
  if (header === undefined || appSecret === '' || !header.startsWith('sha256=')) return false;
  return constantTimeEqual(header.slice('sha256='.length).toLowerCase(), hmacSha256Hex(appSecret, rawBody));
};

// Graph API error codes that clear with time: rate limits, throughput, temporary unavailability.
const RETRYABLE_GRAPH_CODES = new Set([1, 2, 4, 17, 80007, 130429, 131000, 131016, 131056]);

const toSendFailure = (response: PlatformResponse): SendResult => {
  const error = isRecord(response.json) && isRecord(response.json.error) ? response.json.error : {};
  const code = typeof error.code === 'number' ? error.code : undefined;
  return {
    ok: false,
    retryable: isRetryableStatus(response.status) || (code !== undefined && RETRYABLE_GRAPH_CODES.has(code)),
    error: `whatsapp ${response.status}${code === undefined ? '' : ` code ${code}`}: ${str(error.message) ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

const messageIdOf = (json: unknown): string | undefined => {
  if (!isRecord(json) || !Array.isArray(json.messages)) return undefined;
  const first: unknown = json.messages[0];
  return isRecord(first) ? str(first.id) : undefined;
};

export interface WhatsAppAdapter extends ChannelAdapter {
  /** The connection identifier (phone number id) of a webhook body, for the generic webhook route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

/**
 * WhatsApp Cloud API (Meta) adapter. Connection identifier: the phone number id. Session key: the
 * user's WhatsApp id (one conversation per user and number).
 */
export const createWhatsAppAdapter = (): WhatsAppAdapter => {
  const endpoint = (connection: ResolvedConnection, http: ChannelHttp) =>
    `${http.apiBaseUrl ?? WHATSAPP_API_BASE_URL}/${encodeURIComponent(connection.externalIdentifier)}/messages`;
  const auth = (connection: ResolvedConnection) => ({
    authorization: `Bearer ${connection.credentials.accessToken ?? ''}`,
  });

  return {
    channelType: WHATSAPP_CHANNEL_TYPE,

    ...jsonWebhook({
      parse: (body, connection) => parseWhatsAppPayload(body, connection.externalIdentifier),
      identify: whatsAppPhoneNumberId,
      render: toWhatsAppOutput,
    }),

    verifyRequest(req, connection) {
      return verifyMetaSignature(
        req.rawBody,
        headerValue(req.headers, 'x-hub-signature-256'),
        connection.credentials.appSecret ?? '',
      );
    },

    async sendResponse(message: OutgoingMessage, connection, http) {
      const output = storedOutput(message, 'messages', toWhatsAppOutput);
      let lastId: string | undefined;
      for (const body of output.messages) {
        const response = await postJson(
          http.fetch,
          endpoint(connection, http),
          {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: message.externalSessionKey,
            ...body,
          },
          auth(connection),
        );
        if (response.status < 200 || response.status >= 300) return toSendFailure(response);
        lastId = messageIdOf(response.json) ?? lastId;
      }
      return lastId === undefined ? { ok: true } : { ok: true, externalMessageId: lastId };
    },

    /** Marks the user's message read and shows the typing indicator (needs its wamid in metadata). */
    async sendTypingIndicator(connection, _externalSessionKey, metadata, http) {
      const messageId = str(metadata.messageId);
      if (messageId === undefined) return;
      await postJson(
        http.fetch,
        endpoint(connection, http),
        {
          messaging_product: 'whatsapp',
          status: 'read',
          message_id: messageId,
          typing_indicator: { type: 'text' },
        },
        auth(connection),
      );
    },

    async challenge(req, lookup) {
      if (req.query['hub.mode'] !== 'subscribe') return null;
      const token = req.query['hub.verify_token'];
      const challenge = req.query['hub.challenge'];
      if (token === undefined || challenge === undefined) return { status: 403, body: 'Forbidden' };
      const connection = await lookup(WHATSAPP_CHANNEL_TYPE, token);
      return connection === null ? { status: 403, body: 'Forbidden' } : { status: 200, body: challenge };
    },
  };
};
