import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';
import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { ChannelHttp, ResolvedConnection, SendResult } from '../../types.js';
import { jsonWebhook } from '../jsonWebhook.js';
import { headerValue, isRecord, isRetryableStatus, type PlatformResponse, postJson, str } from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { parseZendeskWebhook, zendeskAppId } from './zendeskPayload.js';
import { toZendeskOutput } from './zendeskTransform.js';

export const ZENDESK_CHANNEL_TYPE = 'zendesk';
/** Sunshine Conversations API host (US); the connection's `apiBaseUrl` selects another region. */
export const ZENDESK_API_BASE_URL = 'https://api.smooch.io';
/** Connection credentials: app id, API key id and secret; `webhookSecret` optional. */
export const ZENDESK_CREDENTIALS = ['appId', 'keyId', 'keySecret'] as const;
/** Signed requests older or newer than this are refused as replays. */
export const ZENDESK_REPLAY_WINDOW_SECONDS = 300;

/** Seconds since the epoch of a signature timestamp: ISO 8601 (Zendesk's form) or Unix seconds. */
const timestampSeconds = (timestamp: string): number | undefined => {
  if (/^\d{1,15}$/.test(timestamp)) return Number(timestamp);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(timestamp))
    return undefined;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : ms / 1000;
};

/**
 * X-Zendesk-Webhook-Signature is the base64 HMAC-SHA256 of the
 * X-Zendesk-Webhook-Signature-Timestamp value followed by the raw body, keyed with the webhook
 * secret; the timestamp must be within five minutes of now, either way.
 */
export const verifyZendeskSignature = (input: {
  rawBody: Buffer;
  timestamp: string | undefined;
  signature: string | undefined;
  webhookSecret: string;
  nowSeconds: number;
}): boolean => {
  const { rawBody, timestamp, signature, webhookSecret, nowSeconds } = input;
  if (timestamp === undefined || signature === undefined || webhookSecret === '') return false;
  const seconds = timestampSeconds(timestamp);
  if (seconds === undefined || Math.abs(nowSeconds - seconds) > ZENDESK_REPLAY_WINDOW_SECONDS) return false;
  const expected = createHmac('sha256', webhookSecret)
    .update(Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]))
    .digest('base64');
  return constantTimeEqual(signature, expected);
};

/** HTTP Basic auth with the connection's API key id and secret, compared in constant time. */
export const verifyZendeskBasicAuth = (
  authorization: string | undefined,
  keyId: string,
  keySecret: string,
): boolean => {
  if (authorization === undefined || keyId === '' || keySecret === '') return false;
  const match = /^basic[ ]+(\S+)$/i.exec(authorization.trim());
  if (match?.[1] === undefined) return false;
  return constantTimeEqual(match[1], Buffer.from(`${keyId}:${keySecret}`, 'utf8').toString('base64'));
};

const basicAuth = (connection: ResolvedConnection) =>
  `Basic ${Buffer.from(`${connection.credentials.keyId ?? ''}:${connection.credentials.keySecret ?? ''}`, 'utf8').toString('base64')}`;

const toSendFailure = (response: PlatformResponse): SendResult => {
  const errors = isRecord(response.json) ? response.json.errors : undefined;
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  const detail = isRecord(first) ? (str(first.title) ?? str(first.code)) : undefined;
  return {
    ok: false,
    retryable: isRetryableStatus(response.status),
    error: `zendesk ${response.status}: ${detail ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

export interface ZendeskAdapter extends ChannelAdapter {
  /** The app id (`app.id`) of a webhook body, for the generic webhook route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

export interface ZendeskAdapterOptions {
  now?: () => Date;
}

/**
 * Support platform adapter (Zendesk Sunshine Conversations API v2). Connection identifier: the app
 * id. Session key: the conversation id.
 */
export const createZendeskAdapter = (options: ZendeskAdapterOptions = {}): ZendeskAdapter => {
  const now = options.now ?? (() => new Date());
  const conversationUrl = (
    connection: ResolvedConnection,
    http: ChannelHttp,
    conversationId: string,
    tail: string,
  ) => {
    const appId = connection.credentials.appId ?? connection.externalIdentifier;
    return `${http.apiBaseUrl ?? ZENDESK_API_BASE_URL}/v2/apps/${encodeURIComponent(appId)}/conversations/${encodeURIComponent(conversationId)}/${tail}`;
  };
  const conversationOf = (externalSessionKey: string, metadata: Record<string, unknown>) =>
    str(metadata.conversationId) ?? externalSessionKey;

  return {
    channelType: ZENDESK_CHANNEL_TYPE,

    /**
     * With a webhook secret: a fresh HMAC signature when the request is signed, else the secret
     * itself in `X-API-Key` (how Sunshine Conversations integration webhooks authenticate; a
     * replayed request is then stopped by the message id's deduplication). Without one, the
     * webhook's basic-auth header must carry the connection's key id and secret.
     */
    ...jsonWebhook({
      parse: parseZendeskWebhook,
      identify: zendeskAppId,
      render: toZendeskOutput,
    }),
    verifyRequest(req, connection) {
      const webhookSecret = connection.credentials.webhookSecret ?? '';
      if (webhookSecret !== '') {
        const signature = headerValue(req.headers, 'x-zendesk-webhook-signature');
        const apiKey = headerValue(req.headers, 'x-api-key');
        if (signature === undefined && apiKey !== undefined) return constantTimeEqual(apiKey, webhookSecret);
        return verifyZendeskSignature({
          rawBody: req.rawBody,
          timestamp: headerValue(req.headers, 'x-zendesk-webhook-signature-timestamp'),
          signature,
          webhookSecret,
          nowSeconds: now().getTime() / 1000,
        });
      }
      return verifyZendeskBasicAuth(
        headerValue(req.headers, 'authorization'),
        connection.credentials.keyId ?? '',
        connection.credentials.keySecret ?? '',
      );
    },

    async sendResponse(message, connection, http) {
      const output = storedOutput(message, 'messages', toZendeskOutput);
      const url = conversationUrl(
        connection,
        http,
        conversationOf(message.externalSessionKey, message.metadata),
        'messages',
      );
      let lastId: string | undefined;
      for (const content of output.messages) {
        const response = await postJson(
          http.fetch,
          url,
          { author: { type: 'business' }, content },
          { authorization: basicAuth(connection) },
        );
        if (response.status < 200 || response.status >= 300) return toSendFailure(response);
        const sent = isRecord(response.json) ? response.json.messages : undefined;
        const last: unknown = Array.isArray(sent) ? sent.at(-1) : undefined;
        lastId = (isRecord(last) ? str(last.id) : undefined) ?? lastId;
      }
      return lastId === undefined ? { ok: true } : { ok: true, externalMessageId: lastId };
    },

    async sendTypingIndicator(connection, externalSessionKey, metadata, http) {
      await postJson(
        http.fetch,
        conversationUrl(connection, http, conversationOf(externalSessionKey, metadata), 'activity'),
        { author: { type: 'business' }, type: 'typing:start' },
        { authorization: basicAuth(connection) },
      );
    },
  };
};
