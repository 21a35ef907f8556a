import { randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';
import type { ChannelAdapter } from '../../adapter.js';
import type { ChannelHttp, ResolvedConnection, SendResult } from '../../types.js';
import {
  headerValue,
  isRecord,
  isRetryableStatus,
  jsonBody,
  type PlatformResponse,
  postJson,
  str,
} from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { webhookBodyProblem } from '../webhookBody.js';
import { parseTelegramUpdate } from './telegramPayload.js';
import { toTelegramOutput } from './telegramTransform.js';

export const TELEGRAM_CHANNEL_TYPE = 'telegram';
export const TELEGRAM_API_BASE_URL = 'https://api.telegram.org';
/**
 * Connection credentials: the bot token (required) and `webhookSecret`
 * (generateTelegramSecretToken) when it registers the webhook (registerTelegramWebhook).
 */
export const TELEGRAM_CREDENTIALS = ['botToken'] as const;

/** X-Telegram-Bot-Api-Secret-Token must equal the secret_token set with setWebhook. */
export const verifyTelegramSecret = (header: string | undefined, secret: string): boolean =>
  header !== undefined && secret !== '' && constantTimeEqual(header, secret);

/** A fresh webhook secret token: 1-256 characters of A-Z, a-z, 0-9, _ and - (base64url). */
export const generateTelegramSecretToken = (): string => randomBytes(32).toString('base64url');

const methodUrl = (connection: ResolvedConnection, http: ChannelHttp, method: string) =>
  `${http.apiBaseUrl ?? TELEGRAM_API_BASE_URL}/bot${connection.credentials.botToken ?? ''}/${method}`;

const call = (connection: ResolvedConnection, http: ChannelHttp, method: string, body: unknown) =>
  postJson(http.fetch, methodUrl(connection, http, method), body).then((response) => ({
    response,
    ok: response.status === 200 && isRecord(response.json) && response.json.ok === true,
  }));

// The token is part of the URL: error text must never include the URL.
const toSendFailure = (response: PlatformResponse): SendResult => {
  const json = isRecord(response.json) ? response.json : {};
  return {
    ok: false,
    retryable: isRetryableStatus(response.status),
    error: `telegram ${response.status}: ${str(json.description) ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** Where a reply goes: the chat id and forum topic, from metadata or else the session key. */
const targetOf = (externalSessionKey: string, metadata: Record<string, unknown>) => {
  const [chat, thread] = externalSessionKey.split(':');
  const chatId = num(metadata.chatId) ?? chat ?? externalSessionKey;
  const threadId = num(metadata.messageThreadId) ?? (thread === undefined ? undefined : Number(thread));
  return { chat_id: chatId, ...(threadId === undefined ? {} : { message_thread_id: threadId }) };
};

export interface TelegramAdapterOptions {
  now?: () => Date;
}

/**
 * Telegram Bot API adapter. Connection identifier: the bot id (the digits before `:` in the bot
 * token). Session key: the chat id (`<chat id>:<topic id>` in forum topics).
 */
export const createTelegramAdapter = (options: TelegramAdapterOptions = {}): ChannelAdapter => {
  const now = options.now ?? (() => new Date());
  return {
    channelType: TELEGRAM_CHANNEL_TYPE,

    checkBody: (req) => webhookBodyProblem(req, ['json']),

    verifyRequest(req, connection) {
      return verifyTelegramSecret(
        headerValue(req.headers, 'x-telegram-bot-api-secret-token'),
        connection.credentials.webhookSecret ?? '',
      );
    },

    parseIncoming(req) {
      return parseTelegramUpdate(jsonBody(req.body, req.rawBody), now());
    },

    transformOutput(reply) {
      return toTelegramOutput(reply);
    },

    async sendResponse(message, connection, http) {
      const target = targetOf(message.externalSessionKey, message.metadata);
      const callbackQueryId = str(message.metadata.callbackQueryId);
      if (callbackQueryId !== undefined) {
        // Stops the button's loading spinner; a stale query id fails harmlessly.
        await call(connection, http, 'answerCallbackQuery', { callback_query_id: callbackQueryId });
      }
      const output = storedOutput(message, 'messages', toTelegramOutput);
      let lastId: string | undefined;
      for (const body of output.messages) {
        const { response, ok } = await call(connection, http, 'sendMessage', { ...target, ...body });
        if (!ok) return toSendFailure(response);
        const result = isRecord(response.json) && isRecord(response.json.result) ? response.json.result : {};
        const id = num(result.message_id);
        if (id !== undefined) lastId = `${target.chat_id}:${id}`;
      }
      return lastId === undefined ? { ok: true } : { ok: true, externalMessageId: lastId };
    },

    async sendTypingIndicator(connection, externalSessionKey, metadata, http) {
      await call(connection, http, 'sendChatAction', {
        ...targetOf(externalSessionKey, metadata),
        action: 'typing',
      });
    },

    webhookCredentials(connection): Record<string, string> {
      const secret = connection.credentials.webhookSecret;
      return secret === undefined || secret === '' ? { webhookSecret: generateTelegramSecretToken() } : {};
    },

    registerWebhook: (connection, url, http) => registerTelegramWebhook(connection, url, http),
  };
};

/**
 * Registers the webhook with Telegram (setWebhook): the service does this itself for a bot
 * connection. `url` is the public webhook URL; the connection's webhookSecret comes back in the
 * X-Telegram-Bot-Api-Secret-Token header of every update.
 */
export const registerTelegramWebhook = async (
  connection: ResolvedConnection,
  url: string,
  http: ChannelHttp,
): Promise<SendResult> => {
  const { response, ok } = await call(connection, http, 'setWebhook', {
    url,
    secret_token: connection.credentials.webhookSecret,
    allowed_updates: ['message', 'callback_query'],
  });
  return ok ? { ok: true } : toSendFailure(response);
};
