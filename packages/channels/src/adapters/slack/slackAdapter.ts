import { constantTimeEqual } from '@parley/platform';
import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { ChannelHttp, ResolvedConnection, SendResult } from '../../types.js';
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
import { webhookBodyProblem } from '../webhookBody.js';
import { parseSlackBody, slackBody, slackConnectionIdentifier } from './slackPayload.js';
import { toSlackOutput } from './slackTransform.js';

export const SLACK_CHANNEL_TYPE = 'slack';
export const SLACK_API_BASE_URL = 'https://slack.com/api';
/** Connection credentials: the bot token (xoxb-) and the app's signing secret. */
export const SLACK_CREDENTIALS = ['botToken', 'signingSecret'] as const;
/** Requests older or newer than this are refused as replays (Slack's documented 5 minutes). */
export const SLACK_REPLAY_WINDOW_SECONDS = 300;

/**
 * Slack request signing v0: X-Slack-Signature is `v0=` + hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` with the signing secret; the timestamp must be within
 * five minutes of now.
 */
export const verifySlackSignature = (input: {
  rawBody: Buffer;
  timestamp: string | undefined;
  signature: string | undefined;
  signingSecret: string;
  nowSeconds: number;
}): boolean => {
  const { rawBody, timestamp, signature, signingSecret, nowSeconds } = input;
  if (timestamp === undefined || signature === undefined || signingSecret === '') return false;
  if (!/^\d{1,15}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_REPLAY_WINDOW_SECONDS) return false;
  const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), rawBody]);
  return constantTimeEqual(signature, `v0=${hmacSha256Hex(signingSecret, base)}`);
};

// Web API errors that clear with time; every other error (invalid_auth, channel_not_found...) is permanent.
const RETRYABLE_ERRORS = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

const toSendFailure = (response: PlatformResponse): SendResult => {
  const error = isRecord(response.json) ? str(response.json.error) : undefined;
  return {
    ok: false,
    retryable: isRetryableStatus(response.status) || (error !== undefined && RETRYABLE_ERRORS.has(error)),
    error: `slack ${response.status}: ${error ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

/** Where a reply goes: channel and thread from metadata, else from the session key. */
const targetOf = (externalSessionKey: string, metadata: Record<string, unknown>) => {
  const [keyChannel, keyThread] = externalSessionKey.split(':');
  const channel = str(metadata.channel) ?? keyChannel ?? externalSessionKey;
  const fromKey = keyThread !== undefined && /^\d+\.\d+$/.test(keyThread) ? keyThread : undefined;
  const threadTs = str(metadata.threadTs) ?? fromKey;
  return { channel, ...(threadTs === undefined ? {} : { thread_ts: threadTs }) };
};

export interface SlackAdapter extends ChannelAdapter {
  /** `<team_id>:<app_id>` of a request body, for the generic webhook route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

export interface SlackAdapterOptions {
  now?: () => Date;
}

/**
 * Slack adapter (Events API, slash commands, interactivity). Connection identifier:
 * `<team_id>:<app_id>`. Session key: `<channel>:<thread ts>` in channels, the channel id in
 * direct messages, `<channel>:<user>` for slash commands.
 */
export const createSlackAdapter = (options: SlackAdapterOptions = {}): SlackAdapter => {
  const now = options.now ?? (() => new Date());
  const post = (connection: ResolvedConnection, http: ChannelHttp, method: string, body: unknown) =>
    postJson(http.fetch, `${http.apiBaseUrl ?? SLACK_API_BASE_URL}/${method}`, body, {
      authorization: `Bearer ${connection.credentials.botToken ?? ''}`,
    });

  return {
    channelType: SLACK_CHANNEL_TYPE,
    // Events are JSON; slash commands and interactivity are forms (the latter with JSON in `payload`).
    checkBody: (req) =>
      webhookBodyProblem(req, ['json', 'form']) ??
      (slackBody(req.body, req.rawBody) === null ? 'body_malformed' : null),

    verifyRequest(req, connection) {
      return verifySlackSignature({
        rawBody: req.rawBody,
        timestamp: headerValue(req.headers, 'x-slack-request-timestamp'),
        signature: headerValue(req.headers, 'x-slack-signature'),
        signingSecret: connection.credentials.signingSecret ?? '',
        nowSeconds: Math.floor(now().getTime() / 1000),
      });
    },

    parseIncoming(req) {
      return parseSlackBody(slackBody(req.body, req.rawBody), now());
    },

    connectionIdentifier(req) {
      const body = slackBody(req.body, req.rawBody);
      return body === null ? null : slackConnectionIdentifier(body);
    },

    transformOutput(reply) {
      return toSlackOutput(reply);
    },

    async sendResponse(message, connection, http) {
      const target = targetOf(message.externalSessionKey, message.metadata);
      const output = storedOutput(message, 'messages', toSlackOutput);
      let lastTs: string | undefined;
      for (const body of output.messages) {
        const response = await post(connection, http, 'chat.postMessage', { ...target, ...body });
        if (response.status !== 200 || !isRecord(response.json) || response.json.ok !== true) {
          return toSendFailure(response);
        }
        lastTs = str(response.json.ts) ?? lastTs;
      }
      return lastTs === undefined
        ? { ok: true }
        : { ok: true, externalMessageId: `${target.channel}:${lastTs}` };
    },

    /**
     * Slack's url_verification handshake arrives as a POST: answer with the challenge. Other
     * requests are not challenges (null).
     */
    async challenge(req) {
      const body = slackBody(req.body, req.rawBody);
      if (body === null || body.type !== 'url_verification') return null;
      const challenge = str(body.challenge);
      return challenge === undefined
        ? { status: 400, body: 'Bad Request' }
        : { status: 200, body: challenge };
    },
  };
};
