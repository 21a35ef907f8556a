import { createHash } from 'node:crypto';
import type { ChannelHttp } from '../../types.js';
import type { GraphConfig } from './emailSettings.js';
import type { EmailTransport } from './emailTransport.js';

export const GRAPH_API_BASE_URL = 'https://graph.microsoft.com/v1.0';
const TOKEN_SCOPE = 'https://graph.microsoft.com/.default';
/** A token is used until this long before it expires. */
const TOKEN_MARGIN_MS = 60_000;

/** Client-credentials tokens by (login base, tenant, client, secret hash); shared by the sends of a process. */
export type GraphTokenCache = Map<string, { token: string; expiresAt: number }>;

const retryable = (status: number): boolean => status === 429 || status >= 500;

/**
 * Sends through Microsoft Graph: a client-credentials token from
 * `<login>/<tenant>/oauth2/v2.0/token`, then `POST <api>/users/<sender>/sendMail` with the MIME
 * message base64-encoded (`Content-Type: text/plain`), so the threading and loop-prevention headers
 * go out exactly as composed (Graph's JSON message only takes `x-` custom headers). 202: sent.
 */
export function graphTransport(
  config: GraphConfig,
  http: ChannelHttp,
  tokens: GraphTokenCache,
  now: () => Date,
): EmailTransport {
  const cacheKey = JSON.stringify([
    config.loginBaseUrl,
    config.tenantId,
    config.clientId,
    createHash('sha256').update(config.clientSecret).digest('hex'),
  ]);

  async function token(): Promise<
    { token: string } | { error: string; status?: number; retryable: boolean }
  > {
    const cached = tokens.get(cacheKey);
    if (cached !== undefined && cached.expiresAt - TOKEN_MARGIN_MS > now().getTime())
      return { token: cached.token };
    const url = `${config.loginBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(config.tenantId)}/oauth2/v2.0/token`;
    const res = await http.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        scope: TOKEN_SCOPE,
        grant_type: 'client_credentials',
      }).toString(),
    });
    const body = (await res.json().catch(() => null)) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
    } | null;
    if (!res.ok || typeof body?.access_token !== 'string') {
      const code = typeof body?.error === 'string' ? ` ${body.error.slice(0, 100)}` : '';
      return {
        error: `graph token ${res.status}${code}`,
        status: res.status,
        retryable: retryable(res.status),
      };
    }
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    tokens.set(cacheKey, { token: body.access_token, expiresAt: now().getTime() + seconds * 1000 });
    return { token: body.access_token };
  }

  return {
    async send(email) {
      const auth = await token();
      if ('error' in auth) {
        return {
          ok: false,
          retryable: auth.retryable,
          error: auth.error,
          ...(auth.status === undefined ? {} : { status: auth.status }),
        };
      }
      const base = (http.apiBaseUrl ?? GRAPH_API_BASE_URL).replace(/\/+$/, '');
      const res = await http.fetch(`${base}/users/${encodeURIComponent(config.sender)}/sendMail`, {
        method: 'POST',
        headers: { authorization: `Bearer ${auth.token}`, 'content-type': 'text/plain' },
        body: email.raw.toString('base64'),
      });
      if (res.ok) {
        await res.body?.cancel();
        return { ok: true, externalMessageId: email.messageId };
      }
      const body = (await res.json().catch(() => null)) as { error?: { code?: unknown } } | null;
      const code = typeof body?.error?.code === 'string' ? ` ${body.error.code.slice(0, 100)}` : '';
      // A token revoked or expired early: the next attempt fetches a new one.
      if (res.status === 401) tokens.delete(cacheKey);
      return {
        ok: false,
        retryable: retryable(res.status) || res.status === 401,
        error: `graph ${res.status}${code}`,
        status: res.status,
      };
    },
  };
}
