import { errors, importJWK, type JWK, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { isRecord, str } from '../shared.js';

/** Where the Bot Framework publishes the keys that sign requests to bots (public cloud). */
export const BOT_FRAMEWORK_OPENID_METADATA_URL =
  'https://login.botframework.com/v1/.well-known/openidconfiguration';
/** `iss` of tokens the Bot Connector sends to bots. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** The algorithms the Bot Framework signs with (its SDKs accept these three). */
export const BOT_FRAMEWORK_ALGORITHMS = ['RS256', 'RS384', 'RS512'];
/** Clock skew allowed on exp/nbf: the 5 minutes the Bot Framework documents. */
export const BOT_FRAMEWORK_CLOCK_TOLERANCE_SECONDS = 300;

interface SigningKey {
  jwk: JWK;
  /** Bot Framework channel ids this key may sign for (`endorsements`), when the JWKS lists them. */
  endorsements?: string[];
}

export interface BotFrameworkKeys {
  /** The signing key with this `kid`, refetching the key set when stale or when the kid is new. */
  key(kid: string | undefined): Promise<SigningKey | undefined>;
}

export interface BotFrameworkKeysOptions {
  /** The OpenID metadata document; its `jwks_uri` names the key set. */
  metadataUrl: string;
  fetch: typeof fetch;
  now: () => Date;
  /** Keys are refetched after this long (default 24 hours; Microsoft rotates them with notice). */
  maxAgeMs?: number;
  /** No refetch sooner than this after the last attempt: an unknown kid cannot make us hammer the IdP. */
  minRefreshIntervalMs?: number;
  timeoutMs?: number;
}

const getJson = async (fetchFn: typeof fetch, url: string, timeoutMs: number): Promise<unknown> => {
  const response = await fetchFn(url, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as unknown;
};

const toSigningKeys = (jwks: unknown): Map<string, SigningKey> => {
  const keys = new Map<string, SigningKey>();
  const list = isRecord(jwks) && Array.isArray(jwks.keys) ? jwks.keys : [];
  for (const entry of list) {
    if (!isRecord(entry) || entry.kty !== 'RSA') continue;
    const kid = str(entry.kid);
    const n = str(entry.n);
    const e = str(entry.e);
    if (kid === undefined || n === undefined || e === undefined) continue;
    const endorsements = Array.isArray(entry.endorsements)
      ? entry.endorsements.filter((x): x is string => typeof x === 'string')
      : undefined;
    keys.set(kid, { jwk: { kty: 'RSA', n, e }, ...(endorsements === undefined ? {} : { endorsements }) });
  }
  return keys;
};

/**
 * The Bot Framework's signing keys: the OpenID metadata, then its `jwks_uri`, cached for a day
 * and refetched early when a token names an unknown kid (key rotation), at most once a minute.
 * One refetch at a time; a failed fetch keeps the keys already known.
 */
export const createBotFrameworkKeys = (options: BotFrameworkKeysOptions): BotFrameworkKeys => {
  const maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60 * 1000;
  const minRefreshIntervalMs = options.minRefreshIntervalMs ?? 60 * 1000;
  const timeoutMs = options.timeoutMs ?? 5000;
  let keys = new Map<string, SigningKey>();
  let fetchedAt: number | undefined;
  let attemptedAt: number | undefined;
  let inFlight: Promise<void> | undefined;

  const load = async () => {
    const metadata = await getJson(options.fetch, options.metadataUrl, timeoutMs);
    const jwksUri = isRecord(metadata) ? str(metadata.jwks_uri) : undefined;
    if (jwksUri === undefined || !/^https?:\/\//.test(jwksUri)) throw new Error('no jwks_uri');
    const fresh = toSigningKeys(await getJson(options.fetch, jwksUri, timeoutMs));
    if (fresh.size === 0) throw new Error('empty key set');
    keys = fresh;
    fetchedAt = options.now().getTime();
  };

  const refresh = async (): Promise<void> => {
    const now = options.now().getTime();
    if (attemptedAt !== undefined && now - attemptedAt < minRefreshIntervalMs) return inFlight;
    attemptedAt = now;
    inFlight = load()
      .catch(() => {
        // Keep the known keys; the next attempt comes after minRefreshIntervalMs.
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return {
    async key(kid) {
      if (kid === undefined) return undefined;
      if (fetchedAt === undefined || options.now().getTime() - fetchedAt > maxAgeMs) await refresh();
      const known = keys.get(kid);
      if (known !== undefined) return known;
      await refresh();
      return keys.get(kid);
    },
  };
};

/** The bearer token of an Authorization header, or undefined. */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = /^Bearer ([A-Za-z0-9_.=-]+)$/i.exec(authorization?.trim() ?? '');
  return match?.[1];
};

/**
 * A request from the Bot Connector to the bot (Bot Framework "Authenticate requests from the Bot
 * Connector service"): a JWT signed by a key of the Bot Framework's OpenID key set (endorsed for
 * the activity's channel when the key lists endorsements), `iss` https://api.botframework.com,
 * `aud` the bot's app id, within exp/nbf (5 minutes of skew), and a `serviceUrl` claim equal to
 * the activity's serviceUrl (the URL the reply will be sent to, with the bot's own token).
 * Never throws: anything else is false.
 */
export const verifyBotFrameworkToken = async (input: {
  authorization: string | undefined;
  activity: Record<string, unknown> | null;
  appId: string;
  keys: BotFrameworkKeys;
  now: Date;
}): Promise<boolean> => {
  try {
    const token = bearerToken(input.authorization);
    const serviceUrl = input.activity === null ? undefined : str(input.activity.serviceUrl);
    if (token === undefined || serviceUrl === undefined || input.appId === '') return false;
    const channelId = str(input.activity?.channelId);
    const getKey: JWTVerifyGetKey = async (header) => {
      const key = await input.keys.key(header.kid);
      if (key === undefined) throw new errors.JWKSNoMatchingKey();
      if (
        key.endorsements !== undefined &&
        (channelId === undefined || !key.endorsements.includes(channelId))
      )
        throw new errors.JWKSNoMatchingKey('the key is not endorsed for this channel');
      return importJWK(key.jwk, header.alg);
    };
    const { payload } = await jwtVerify(token, getKey, {
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: input.appId,
      algorithms: BOT_FRAMEWORK_ALGORITHMS,
      clockTolerance: BOT_FRAMEWORK_CLOCK_TOLERANCE_SECONDS,
      currentDate: input.now,
      requiredClaims: ['exp'],
    });
    return typeof payload.serviceUrl === 'string' && payload.serviceUrl === serviceUrl;
  } catch {
    return false;
  }
};
