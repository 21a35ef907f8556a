import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
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

export interface BotFrameworkKeys {
  /**
   * The key of the Bot Framework's key set that signed this token (jose's `JWTVerifyGetKey`), when
   * it is endorsed for `channelId` (the JWKS's `endorsements`, where a key lists them).
   */
  getKey(channelId: string | undefined): JWTVerifyGetKey;
}

export interface BotFrameworkKeysOptions {
  /** The OpenID metadata document; its `jwks_uri` names the key set. */
  metadataUrl: string;
  fetch: typeof fetch;
  /** Keys are refetched after this long (default 24 hours; Microsoft rotates them with notice). */
  maxAgeMs?: number;
  /** No refetch sooner than this after the last one: an unknown kid cannot make us hammer the IdP. */
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

/**
 * The Bot Framework's signing keys: the OpenID metadata names the key set (`jwks_uri`, fetched once,
 * again after a failure), which jose's remote JWK set caches for a day and refetches early when a
 * token names an unknown kid (key rotation), at most once a minute. A failed refetch keeps the keys
 * already known.
 */
export const createBotFrameworkKeys = (options: BotFrameworkKeysOptions): BotFrameworkKeys => {
  const timeoutMs = options.timeoutMs ?? 5000;
  let remote: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const remoteSet = () => {
    remote ??= getJson(options.fetch, options.metadataUrl, timeoutMs).then((metadata) => {
      const jwksUri = isRecord(metadata) ? str(metadata.jwks_uri) : undefined;
      if (jwksUri === undefined || !/^https?:\/\//.test(jwksUri)) throw new Error('no jwks_uri');
      return createRemoteJWKSet(new URL(jwksUri), {
        cacheMaxAge: options.maxAgeMs ?? 24 * 60 * 60 * 1000,
        cooldownDuration: options.minRefreshIntervalMs ?? 60 * 1000,
        timeoutDuration: timeoutMs,
        [customFetch]: options.fetch,
      });
    });
    remote.catch(() => {
      remote = undefined;
    });
    return remote;
  };

  return {
    getKey: (channelId) => async (header, token) => {
      const set = await remoteSet();
      const key = await set(header, token).catch((err: unknown) => {
        // The refetch failed (not a missing kid): the keys known from before still verify.
        const known = set.jwks();
        if (err instanceof errors.JWKSNoMatchingKey || known === undefined) throw err;
        return createLocalJWKSet(known)(header, token);
      });
      const endorsements = (set.jwks()?.keys.find((k) => k.kid === header.kid) as { endorsements?: unknown })
        ?.endorsements;
      if (Array.isArray(endorsements) && (channelId === undefined || !endorsements.includes(channelId)))
        throw new errors.JWKSNoMatchingKey('the key is not endorsed for this channel');
      return key;
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
    const getKey = input.keys.getKey(str(input.activity?.channelId));
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
