import { createHs256Tokens, type VerifyTokenFailureReason } from '@parley/platform';
import { z } from 'zod';

/**
 * What an SDK session token says (spec 000 §5 "SDK session token", header
 * `X-SDK-Token`): the tenant and the one project it reaches, optionally the
 * SDK channel and the browser origin it was minted for, and the end user
 * (or anonymous visitor) talking.
 */
export interface SdkTokenClaims {
  tenantId: string;
  projectId: string;
  channelId?: string | undefined;
  origin?: string | undefined;
  /** The end user or anonymous visitor; recorded as a new session's `channelUserId`. */
  sub: string;
}

export interface IssuedSdkToken {
  token: string;
  expiresAt: Date;
}

export type VerifySdkTokenFailureReason = VerifyTokenFailureReason;

export type VerifySdkTokenResult =
  | { ok: true; claims: SdkTokenClaims; expiresAt: Date }
  | { ok: false; reason: VerifySdkTokenFailureReason };

/** Checks an `X-SDK-Token`; `createSdkTokens(...).verify` is the implementation. */
export type VerifySdkToken = (token: string) => Promise<VerifySdkTokenResult>;

export interface SdkTokens {
  /** Mints a token for these claims, valid `ttlSeconds` from now. Throws on claims it would refuse. */
  issue(claims: SdkTokenClaims): Promise<IssuedSdkToken>;
  verify: VerifySdkToken;
}

export interface SdkTokensOptions {
  /** HS256 secret (config SDK_TOKEN_SECRET), at least 32 characters; never logged. */
  secret: string;
  /** Lifetime of issued tokens, seconds (default 900; 1..86400: these tokens are short-lived). */
  ttlSeconds?: number;
  /** Clock skew allowed on exp/iat when verifying, seconds (default 30). */
  clockToleranceSeconds?: number;
  /** Test clock. */
  now?: () => Date;
}

export const SDK_TOKEN_DEFAULT_TTL_SECONDS = 900;
export const SDK_TOKEN_MAX_TTL_SECONDS = 86_400;
/** The JWS header `typ` (RFC 8725 §3.11 explicit typing), on top of the `typ: 'sdk'` claim. */
const HEADER_TYP = 'sdk+jwt';

/** Limits match what the claims become: project ids (128), a session's `channelUserId` (512). */
const claimsSchema = z.object({
  typ: z.literal('sdk'),
  tenant_id: z.string().min(1).max(128),
  project_id: z.string().min(1).max(128),
  channel_id: z.string().min(1).max(128).optional(),
  origin: z.string().min(1).max(2048).optional(),
  sub: z.string().min(1).max(512),
  exp: z.number(),
});

/**
 * SDK session tokens: short-lived HS256 JWTs (jose) with the claims `typ:
 * 'sdk'`, `tenant_id`, `project_id`, optional `channel_id` and `origin`,
 * `sub`, `iat` and `exp`, and the header `typ: sdk+jwt`. Their own secret, so
 * a user JWT is never an SDK token and the reverse (a user JWT also lacks the
 * `typ` claim; createJwtVerifier refuses a token carrying `typ: 'sdk'`).
 * Issue 8's `POST /api/v1/sdk/init` mints them with `issue`.
 */
export function createSdkTokens(options: SdkTokensOptions): SdkTokens {
  const ttlSeconds = options.ttlSeconds ?? SDK_TOKEN_DEFAULT_TTL_SECONDS;
  const tokens = createHs256Tokens({
    ...options,
    name: 'createSdkTokens',
    headerTyp: HEADER_TYP,
    claims: claimsSchema,
    requiredClaims: ['sub'],
  });
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > SDK_TOKEN_MAX_TTL_SECONDS) {
    throw new Error(`createSdkTokens: ttlSeconds must be a whole number in 1..${SDK_TOKEN_MAX_TTL_SECONDS}`);
  }

  return {
    async issue(claims) {
      const issuedAt = tokens.nowSeconds();
      const exp = issuedAt + ttlSeconds;
      const token = await tokens.sign(
        {
          typ: 'sdk',
          tenant_id: claims.tenantId,
          project_id: claims.projectId,
          channel_id: claims.channelId,
          origin: claims.origin,
          sub: claims.sub,
          exp,
        },
        issuedAt,
      );
      return { token, expiresAt: new Date(exp * 1000) };
    },

    verify: (token) =>
      tokens.verify(token, (c) => ({
        claims: {
          tenantId: c.tenant_id,
          projectId: c.project_id,
          sub: c.sub,
          ...(c.channel_id === undefined ? {} : { channelId: c.channel_id }),
          ...(c.origin === undefined ? {} : { origin: c.origin }),
        },
        expiresAt: new Date(c.exp * 1000),
      })),
  };
}
