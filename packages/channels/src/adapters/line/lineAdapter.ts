import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';
import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import { derivedUuid } from '../../inbound/ids.js';
import type { ChannelHttp, ResolvedConnection, SendResult } from '../../types.js';
import { jsonWebhook } from '../jsonWebhook.js';
import { headerValue, isRecord, isRetryableStatus, type PlatformResponse, postJson, str } from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { lineDestination, parseLineWebhook } from './linePayload.js';
import { LINE_LIMITS, type LineTextMessage, toLineOutput } from './lineTransform.js';

export const LINE_CHANNEL_TYPE = 'line';
export const LINE_API_BASE_URL = 'https://api.line.me';
/** Connection credentials: the channel access token (Bearer) and the channel secret (signatures). */
export const LINE_CREDENTIALS = ['channelAccessToken', 'channelSecret'] as const;
/**
 * A reply token is used only this long after its event: LINE asks for prompt use and refuses
 * stale tokens, so later replies go through the push API instead.
 */
export const LINE_REPLY_TOKEN_TTL_MS = 50_000;
/** The loading animation's duration (5-60 in steps of 5); it ends early when the reply arrives. */
export const LINE_LOADING_SECONDS = 20;

/** X-Line-Signature is the base64 HMAC-SHA256 of the raw body with the channel secret. */
export const verifyLineSignature = (
  rawBody: Buffer,
  signature: string | undefined,
  channelSecret: string,
): boolean => {
  if (signature === undefined || channelSecret === '') return false;
  return constantTimeEqual(signature, createHmac('sha256', channelSecret).update(rawBody).digest('base64'));
};

/**
 * X-Line-Retry-Key of one push request of a reply: the same on every attempt, so LINE accepts it
 * once (a repeat answers 409). Shaped as a version 4 UUID, the form LINE documents.
 */
export const lineRetryKey = (replyMessageId: string, part: number): string => {
  const id = derivedUuid('line-retry-key', JSON.stringify([replyMessageId, part]));
  return `${id.slice(0, 14)}4${id.slice(15)}`;
};

const toSendFailure = (response: PlatformResponse): SendResult => {
  const message = isRecord(response.json) ? str(response.json.message) : undefined;
  return {
    ok: false,
    retryable: isRetryableStatus(response.status),
    error: `line ${response.status}: ${message ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

const lastSentId = (response: PlatformResponse): string | undefined => {
  const sent = isRecord(response.json) ? response.json.sentMessages : undefined;
  const last: unknown = Array.isArray(sent) ? sent.at(-1) : undefined;
  return isRecord(last) ? str(last.id) : undefined;
};

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

export interface LineAdapter extends ChannelAdapter {
  /** The bot's user id (`destination`) of a webhook body, for the generic webhook route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

export interface LineAdapterOptions {
  now?: () => Date;
}

/**
 * LINE Messaging API adapter. Connection identifier: the bot's user id (`destination`). Session
 * key: the user id in 1:1 chats, the group or room id in group chats (one session per group).
 */
export const createLineAdapter = (options: LineAdapterOptions = {}): LineAdapter => {
  const now = options.now ?? (() => new Date());
  const post = (
    connection: ResolvedConnection,
    http: ChannelHttp,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    postJson(http.fetch, `${http.apiBaseUrl ?? LINE_API_BASE_URL}${path}`, body, {
      authorization: `Bearer ${connection.credentials.channelAccessToken ?? ''}`,
      ...headers,
    });

  return {
    channelType: LINE_CHANNEL_TYPE,

    ...jsonWebhook({
      parse: parseLineWebhook,
      identify: lineDestination,
      render: toLineOutput,
    }),

    verifyRequest(req, connection) {
      return verifyLineSignature(
        req.rawBody,
        headerValue(req.headers, 'x-line-signature'),
        connection.credentials.channelSecret ?? '',
      );
    },

    /**
     * The first five messages go with the reply token while it is fresh; the rest, and everything
     * once the token is stale or refused (used by an earlier attempt, expired), go with the push
     * API to the chat, each request with its retry key.
     */
    async sendResponse(message, connection, http) {
      const output = storedOutput(message, 'messages', toLineOutput);
      const batches: LineTextMessage[][] = [];
      for (let i = 0; i < output.messages.length; i += LINE_LIMITS.messagesPerRequest) {
        batches.push(output.messages.slice(i, i + LINE_LIMITS.messagesPerRequest));
      }
      const replyToken = str(message.metadata.replyToken);
      const eventTimestamp = num(message.metadata.eventTimestamp);
      const fresh =
        replyToken !== undefined &&
        eventTimestamp !== undefined &&
        now().getTime() - eventTimestamp < LINE_REPLY_TOKEN_TTL_MS;
      let lastId: string | undefined;
      for (const [part, messages] of batches.entries()) {
        if (part === 0 && fresh) {
          const replied = await post(connection, http, '/v2/bot/message/reply', { replyToken, messages });
          if (replied.status === 200) {
            lastId = lastSentId(replied) ?? lastId;
            continue;
          }
          // 400 is LINE's answer to a used or expired token: the push API still reaches the chat.
          if (replied.status !== 400) return toSendFailure(replied);
        }
        const pushed = await post(
          connection,
          http,
          '/v2/bot/message/push',
          { to: message.externalSessionKey, messages },
          { 'x-line-retry-key': lineRetryKey(message.messageId, part) },
        );
        // 409: an earlier attempt with this retry key was accepted; the part is delivered.
        if (pushed.status !== 200 && pushed.status !== 409) return toSendFailure(pushed);
        lastId = lastSentId(pushed) ?? lastId;
      }
      return lastId === undefined ? { ok: true } : { ok: true, externalMessageId: lastId };
    },

    /** LINE's loading animation exists for 1:1 chats only; groups and rooms get nothing. */
    async sendTypingIndicator(connection, externalSessionKey, metadata, http) {
      if (metadata.sourceType !== 'user') return;
      await post(connection, http, '/v2/bot/chat/loading/start', {
        chatId: str(metadata.userId) ?? externalSessionKey,
        loadingSeconds: LINE_LOADING_SECONDS,
      });
    },
  };
};
