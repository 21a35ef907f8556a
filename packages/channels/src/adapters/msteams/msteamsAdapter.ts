import type { ChannelAdapter, InboundRequest } from '../../adapter.js';
import type { ChannelHttp, ResolvedConnection } from '../../types.js';
import { headerValue, isRecord, isRetryableStatus, type PlatformResponse, postJson, str } from '../shared.js';
import { storedOutput } from '../storedOutput.js';
import { webhookBodyProblem } from '../webhookBody.js';
import {
  BOT_FRAMEWORK_OPENID_METADATA_URL,
  createBotFrameworkKeys,
  verifyBotFrameworkToken,
} from './msteamsAuth.js';
import {
  baseConversationId,
  msteamsActivity,
  msteamsConnectionIdentifier,
  msteamsTenantId,
  parseMsTeamsActivity,
} from './msteamsPayload.js';
import { createBotTokenCache, MICROSOFT_LOGIN_BASE_URL, type SendFailure } from './msteamsToken.js';
import { toMsTeamsOutput } from './msteamsTransform.js';

export const MSTEAMS_CHANNEL_TYPE = 'msteams';
/** Connection credentials: the bot's Azure app registration (single tenant) and its tenant. */
export const MSTEAMS_CREDENTIALS = ['appId', 'clientSecret', 'tenantId'] as const;

export interface MsTeamsAdapter extends ChannelAdapter {
  /** The bot's app id (`recipient.id` without `28:`), for the generic webhook route. */
  connectionIdentifier(req: InboundRequest): string | null;
}

export interface MsTeamsAdapterOptions {
  now?: () => Date;
  /**
   * Fetch for the Bot Framework OpenID metadata and keys (default: global fetch). Deployment-wide
   * on purpose: a connection never chooses the keys its requests are checked with.
   */
  fetch?: typeof fetch;
  /** Bot Framework OpenID metadata (default: public cloud); a sovereign cloud or a test stand-in. */
  openIdMetadataUrl?: string;
  /**
   * Microsoft identity platform host for the bot's tokens (default https://login.microsoftonline.com).
   * A connection with the `apiBaseUrl` setting gets its tokens from there instead.
   */
  loginBaseUrl?: string;
}

const toSendFailure = (response: PlatformResponse): SendFailure => {
  const error = isRecord(response.json) && isRecord(response.json.error) ? response.json.error : {};
  return {
    ok: false,
    retryable: isRetryableStatus(response.status),
    error: `msteams ${response.status}: ${str(error.code) ?? 'request failed'}`,
    ...(response.status === 0 ? {} : { status: response.status }),
  };
};

const permanent = (error: string): SendFailure => ({ ok: false, retryable: false, error });

type Target =
  | { ok: true; conversationUrl: string; replyToId?: string; loginBaseUrl: string }
  | { ok: false; failure: SendFailure };

/**
 * Microsoft Teams adapter (Bot Framework / Bot Connector API v3). Connection identifier: the
 * bot's app id. Session key: the conversation id (a channel thread's id keeps `;messageid=`).
 */
export const createMsTeamsAdapter = (options: MsTeamsAdapterOptions = {}): MsTeamsAdapter => {
  const now = options.now ?? (() => new Date());
  const keys = createBotFrameworkKeys({
    metadataUrl: options.openIdMetadataUrl ?? BOT_FRAMEWORK_OPENID_METADATA_URL,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  });
  const tokens = createBotTokenCache(now);

  /**
   * The conversation's activities URL: on the activity's serviceUrl, or on `apiBaseUrl` when the
   * connection sets one, which then also serves the token endpoint (a stand-in gets all traffic).
   */
  const targetOf = (
    externalSessionKey: string,
    metadata: Record<string, unknown>,
    http: ChannelHttp,
  ): Target => {
    const base = (http.apiBaseUrl ?? str(metadata.serviceUrl))?.replace(/\/+$/, '');
    if (base === undefined || base === '')
      return { ok: false, failure: permanent('msteams: no serviceUrl to reply to') };
    // The bot's token goes to this URL: only over https, unless the connection overrides it.
    if (http.apiBaseUrl === undefined && !base.startsWith('https://'))
      return { ok: false, failure: permanent('msteams: serviceUrl is not https') };
    const conversationId = str(metadata.conversationId) ?? externalSessionKey;
    const replyToId = str(metadata.replyToId);
    return {
      ok: true,
      conversationUrl: `${base}/v3/conversations/${encodeURIComponent(conversationId)}/activities`,
      ...(replyToId === undefined ? {} : { replyToId }),
      loginBaseUrl: (http.apiBaseUrl ?? options.loginBaseUrl ?? MICROSOFT_LOGIN_BASE_URL).replace(/\/+$/, ''),
    };
  };

  /** POSTs with the bot's token; a refused token is renewed once (revoked or rotated secret). */
  const post = async (
    connection: ResolvedConnection,
    http: ChannelHttp,
    loginBaseUrl: string,
    url: string,
    body: unknown,
  ): Promise<{ ok: true; response: PlatformResponse } | { ok: false; failure: SendFailure }> => {
    for (let attempt = 0; ; attempt += 1) {
      const token = await tokens.token(connection, http.fetch, loginBaseUrl);
      if (!token.ok) return { ok: false, failure: token.failure };
      const response = await postJson(http.fetch, url, body, { authorization: `Bearer ${token.token}` });
      if (response.status !== 401 || attempt > 0) return { ok: true, response };
      tokens.forget(connection, loginBaseUrl);
    }
  };

  return {
    channelType: MSTEAMS_CHANNEL_TYPE,

    checkBody: (req) => webhookBodyProblem(req, ['json']),

    async verifyRequest(req, connection) {
      try {
        const appId = connection.credentials.appId ?? '';
        const tenantId = connection.credentials.tenantId ?? '';
        if (appId === '' || tenantId === '') return false;
        const activity = msteamsActivity(req.body, req.rawBody);
        // A token for this bot is valid in every tenant that installed it: only the connection's tenant may talk to it.
        const activityTenant = activity === null ? undefined : msteamsTenantId(activity);
        if (activityTenant !== undefined && activityTenant.toLowerCase() !== tenantId.toLowerCase())
          return false;
        return await verifyBotFrameworkToken({
          authorization: headerValue(req.headers, 'authorization'),
          activity,
          appId,
          keys,
          now: now(),
        });
      } catch {
        return false;
      }
    },

    parseIncoming(req) {
      return parseMsTeamsActivity(msteamsActivity(req.body, req.rawBody), now());
    },

    connectionIdentifier(req) {
      const activity = msteamsActivity(req.body, req.rawBody);
      return activity === null ? null : msteamsConnectionIdentifier(activity);
    },

    transformOutput(reply) {
      return toMsTeamsOutput(reply);
    },

    async sendResponse(message, connection, http) {
      const target = targetOf(message.externalSessionKey, message.metadata, http);
      if (!target.ok) return target.failure;
      const url =
        target.replyToId === undefined
          ? target.conversationUrl
          : `${target.conversationUrl}/${encodeURIComponent(target.replyToId)}`;
      const output = storedOutput(message, 'activities', toMsTeamsOutput);
      let lastId: string | undefined;
      for (const activity of output.activities) {
        const sent = await post(connection, http, target.loginBaseUrl, url, activity);
        if (!sent.ok) return sent.failure;
        if (sent.response.status < 200 || sent.response.status >= 300) return toSendFailure(sent.response);
        lastId = (isRecord(sent.response.json) ? str(sent.response.json.id) : undefined) ?? lastId;
      }
      const conversationId = str(message.metadata.conversationId) ?? message.externalSessionKey;
      return lastId === undefined
        ? { ok: true }
        : { ok: true, externalMessageId: `${baseConversationId(conversationId)}:${lastId}` };
    },

    async sendTypingIndicator(connection, externalSessionKey, metadata, http) {
      const target = targetOf(externalSessionKey, metadata, http);
      if (!target.ok) throw new Error(target.failure.error);
      const sent = await post(connection, http, target.loginBaseUrl, target.conversationUrl, {
        type: 'typing',
      });
      if (!sent.ok) throw new Error(sent.failure.error);
      if (sent.response.status < 200 || sent.response.status >= 300) {
        throw new Error(toSendFailure(sent.response).error);
      }
    },
  };
};
