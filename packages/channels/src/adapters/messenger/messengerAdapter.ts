import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type {
  ChannelHttp,
  OutgoingMessage,
  ResolvedConnection,
  SendResult,
  VerifyTokenLookup,
} from '../../types.js';
import { jsonWebhook } from '../jsonWebhook.js';
import { headerValue, isRecord, isRetryableStatus, type PlatformResponse, postJson, str } from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { verifyMetaSignature } from '../whatsapp/index.js';
import { metaEntryId, parseMessengerPayload } from './messengerPayload.js';
import { type MessengerMessageBody, toMessengerOutput } from './messengerTransform.js';

export const MESSENGER_CHANNEL_TYPE = 'messenger';
export const MESSENGER_API_BASE_URL = 'https://graph.facebook.com/v26.0';
/** Connection credentials: Page access token, Meta app secret, webhook verify token. */
export const MESSENGER_CREDENTIALS = ['accessToken', 'appSecret', 'verifyToken'] as const;

// Graph API error codes that clear with time: temporary errors, rate and throughput limits.
const RETRYABLE_GRAPH_CODES = new Set([1, 2, 4, 17, 32, 613]);

const toSendFailure = (channel: string, response: PlatformResponse): SendResult => {
  const error = isRecord(response.json) && isRecord(response.json.error) ? response.json.error : {};
  const code = typeof error.code === 'number' ? error.code : undefined;
  return {
    ok: false,
    retryable: isRetryableStatus(response.status) || (code !== undefined && RETRYABLE_GRAPH_CODES.has(code)),
    error: `${channel} ${response.status}${code === undefined ? '' : ` code ${code}`}: ${str(error.message) ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

/**
 * Sends Send API messages one after the other to `url` (`/{page-id}/messages`, `/me/messages`)
 * with the bearer token and `envelope` fields (Messenger's `messaging_type`); stops at the first
 * failure. The last message id is reported.
 */
export const sendMetaMessages = async (
  channel: string,
  fetchFn: typeof fetch,
  url: string,
  accessToken: string,
  recipientId: string,
  messages: readonly unknown[],
  envelope: Record<string, unknown> = {},
): Promise<SendResult> => {
  let lastId: string | undefined;
  for (const message of messages) {
    const response = await postJson(
      fetchFn,
      url,
      { recipient: { id: recipientId }, ...envelope, message },
      { authorization: `Bearer ${accessToken}` },
    );
    if (response.status < 200 || response.status >= 300) return toSendFailure(channel, response);
    lastId = (isRecord(response.json) ? str(response.json.message_id) : undefined) ?? lastId;
  }
  return lastId === undefined ? { ok: true } : { ok: true, externalMessageId: lastId };
};

/** The typing indicator (`sender_action: typing_on`); failures are ignored. */
export const sendMetaTyping = async (
  fetchFn: typeof fetch,
  url: string,
  accessToken: string,
  recipientId: string,
) => {
  await postJson(
    fetchFn,
    url,
    { recipient: { id: recipientId }, sender_action: 'typing_on' },
    { authorization: `Bearer ${accessToken}` },
  );
};

/** The GET `hub.mode=subscribe` verify-token challenge of Meta webhooks. */
export const metaChallenge = async (channelType: string, req: InboundRequest, lookup: VerifyTokenLookup) => {
  if (req.query['hub.mode'] !== 'subscribe') return null;
  const token = req.query['hub.verify_token'];
  const challenge = req.query['hub.challenge'];
  if (token === undefined || challenge === undefined) return { status: 403, body: 'Forbidden' };
  const connection = await lookup(channelType, token);
  return connection === null ? { status: 403, body: 'Forbidden' } : { status: 200, body: challenge };
};

export const verifyMetaRequest = (req: InboundRequest, connection: ResolvedConnection): boolean =>
  verifyMetaSignature(
    req.rawBody,
    headerValue(req.headers, 'x-hub-signature-256'),
    connection.credentials.appSecret ?? '',
  );

export interface MessengerAdapter extends ChannelAdapter {
  /** The connection identifier (page id) of a webhook body, for the generic webhook route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

/**
 * Messenger Platform (Meta) adapter. Connection identifier: the Facebook Page id. Session key: the
 * user's page-scoped id (PSID).
 */
export const createMessengerAdapter = (): MessengerAdapter => {
  const endpoint = (connection: ResolvedConnection, http: ChannelHttp) =>
    `${http.apiBaseUrl ?? MESSENGER_API_BASE_URL}/${encodeURIComponent(connection.externalIdentifier)}/messages`;

  return {
    channelType: MESSENGER_CHANNEL_TYPE,

    ...jsonWebhook({
      parse: (body, connection) => parseMessengerPayload(body, connection.externalIdentifier),
      identify: (body) => metaEntryId(body, 'page'),
      render: toMessengerOutput,
    }),

    verifyRequest(req, connection) {
      return verifyMetaRequest(req, connection);
    },

    async sendResponse(message: OutgoingMessage, connection, http) {
      const output = storedOutput(message, 'messages', toMessengerOutput);
      const messages: MessengerMessageBody[] = output.messages;
      return sendMetaMessages(
        MESSENGER_CHANNEL_TYPE,
        http.fetch,
        endpoint(connection, http),
        connection.credentials.accessToken ?? '',
        message.externalSessionKey,
        messages,
        { messaging_type: 'RESPONSE' },
      );
    },

    async sendTypingIndicator(connection, externalSessionKey, _metadata, http) {
      await sendMetaTyping(
        http.fetch,
        endpoint(connection, http),
        connection.credentials.accessToken ?? '',
        externalSessionKey,
      );
    },

    challenge(req, lookup) {
      return metaChallenge(MESSENGER_CHANNEL_TYPE, req, lookup);
    },
  };
};
