import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { ChannelHttp, OutgoingMessage } from '../../types.js';
import { jsonWebhook } from '../jsonWebhook.js';
import { metaChallenge, sendMetaMessages, sendMetaTyping, verifyMetaRequest } from '../messenger/index.js';
import { storedOutput } from '../storedOutput.js';
import { instagramAccountId, parseInstagramPayload } from './instagramPayload.js';
import { toInstagramOutput } from './instagramTransform.js';

export const INSTAGRAM_CHANNEL_TYPE = 'instagram';
export const INSTAGRAM_API_BASE_URL = 'https://graph.facebook.com/v26.0';
/** Connection credentials: access token (Page or Instagram user token), Meta app secret, verify token. */
export const INSTAGRAM_CREDENTIALS = ['accessToken', 'appSecret', 'verifyToken'] as const;

export interface InstagramAdapter extends ChannelAdapter {
  /** The connection identifier (Instagram account id) of a webhook body, for the generic route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

/**
 * Instagram messaging (Meta) adapter. Connection identifier: the Instagram professional account id
 * (`entry[].id`). Session key: the user's Instagram-scoped id (IGSID). Sends to `/me/messages`: the
 * token names the account, with a Page token (graph.facebook.com) or an Instagram user token
 * (graph.instagram.com, set as the connection's `apiBaseUrl`).
 */
export const createInstagramAdapter = (): InstagramAdapter => {
  const endpoint = (http: ChannelHttp) => `${http.apiBaseUrl ?? INSTAGRAM_API_BASE_URL}/me/messages`;

  return {
    channelType: INSTAGRAM_CHANNEL_TYPE,

    ...jsonWebhook({
      parse: (body, connection) => parseInstagramPayload(body, connection.externalIdentifier),
      identify: instagramAccountId,
      render: toInstagramOutput,
    }),

    verifyRequest(req, connection) {
      return verifyMetaRequest(req, connection);
    },

    async sendResponse(message: OutgoingMessage, connection, http) {
      const output = storedOutput(message, 'messages', toInstagramOutput);
      return sendMetaMessages(
        INSTAGRAM_CHANNEL_TYPE,
        http.fetch,
        endpoint(http),
        connection.credentials.accessToken ?? '',
        message.externalSessionKey,
        output.messages,
      );
    },

    async sendTypingIndicator(connection, externalSessionKey, _metadata, http) {
      await sendMetaTyping(
        http.fetch,
        endpoint(http),
        connection.credentials.accessToken ?? '',
        externalSessionKey,
      );
    },

    challenge(req, lookup) {
      return metaChallenge(INSTAGRAM_CHANNEL_TYPE, req, lookup);
    },
  };
};
