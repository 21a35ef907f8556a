import { createHash } from 'node:crypto';
import type { ResolvedConnection, SendResult } from '../../types.js';
import { isRecord, isRetryableStatus, str } from '../shared.js';

/** Microsoft identity platform host that issues the bot's tokens (public cloud). */
export const MICROSOFT_LOGIN_BASE_URL = 'https://login.microsoftonline.com';
/** The scope of tokens for the Bot Connector API. */
export const BOT_CONNECTOR_SCOPE = 'https://api.botframework.com/.default';
/** A cached token is renewed this long before it expires (or at half its life when that is shorter). */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

export type SendFailure = Extract<SendResult, { ok: false }>;
export type TokenResult = { ok: true; token: string } | { ok: false; failure: SendFailure };

export interface BotTokenCache {
  /** A Bot Connector token for the connection: cached, else from the client credentials grant. */
  token(connection: ResolvedConnection, fetchFn: typeof fetch, loginBaseUrl: string): Promise<TokenResult>;
  /** Forgets the connection's token (the Bot Connector refused it). */
  forget(connection: ResolvedConnection, loginBaseUrl: string): void;
}

/** Cache key: a changed secret, tenant or login host gets a new token; the secret itself is not kept. */
const cacheKey = (connection: ResolvedConnection, loginBaseUrl: string): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        connection.id,
        loginBaseUrl,
        connection.credentials.appId ?? '',
        connection.credentials.tenantId ?? '',
        connection.credentials.clientSecret ?? '',
      ]),
    )
    .digest('hex');

const failure = (status: number, error: string): TokenResult => ({
  ok: false,
  failure: {
    ok: false,
    retryable: isRetryableStatus(status),
    error: `msteams token ${status}: ${error}`,
    ...(status === 0 ? {} : { status }),
  },
});

/**
 * OAuth 2.0 client credentials against `<login>/<tenant id>/oauth2/v2.0/token` with scope
 * https://api.botframework.com/.default (single-tenant bot registration). Tokens are cached per
 * connection until shortly before they expire; concurrent sends share one token request.
 */
export const createBotTokenCache = (now: () => Date): BotTokenCache => {
  const cache = new Map<string, { token: string; renewAt: number }>();
  const pending = new Map<string, Promise<TokenResult>>();

  const request = async (
    connection: ResolvedConnection,
    fetchFn: typeof fetch,
    loginBaseUrl: string,
    key: string,
  ): Promise<TokenResult> => {
    const { appId, clientSecret, tenantId } = connection.credentials;
    if (!appId || !clientSecret || !tenantId) {
      return { ok: false, failure: { ok: false, retryable: false, error: 'msteams: credentials missing' } };
    }
    let status = 0;
    let json: unknown;
    try {
      const response = await fetchFn(`${loginBaseUrl}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: appId,
          client_secret: clientSecret,
          scope: BOT_CONNECTOR_SCOPE,
        }).toString(),
      });
      status = response.status;
      json = await response.json().catch(() => undefined);
    } catch {
      return failure(0, 'request failed');
    }
    const body = isRecord(json) ? json : {};
    const token = str(body.access_token);
    if (status !== 200 || token === undefined || token === '') {
      // The identity platform's `error` code (invalid_client...); its description may echo input.
      return failure(status, str(body.error) ?? 'no access token');
    }
    const expiresIn = Number(body.expires_in);
    const lifeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 60 * 60 * 1000;
    cache.set(key, { token, renewAt: now().getTime() + lifeMs - Math.min(RENEW_BEFORE_MS, lifeMs / 2) });
    return { ok: true, token };
  };

  return {
    async token(connection, fetchFn, loginBaseUrl) {
      const key = cacheKey(connection, loginBaseUrl);
      const cached = cache.get(key);
      if (cached !== undefined && now().getTime() < cached.renewAt) return { ok: true, token: cached.token };
      const inFlight = pending.get(key);
      if (inFlight !== undefined) return inFlight;
      const next = request(connection, fetchFn, loginBaseUrl, key).finally(() => pending.delete(key));
      pending.set(key, next);
      return next;
    },
    forget(connection, loginBaseUrl) {
      cache.delete(cacheKey(connection, loginBaseUrl));
    },
  };
};
