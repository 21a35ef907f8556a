import { errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
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

export type VerifySdkTokenFailureReason = 'malformed' | 'signature' | 'expired' | 'claims';

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
  if (options.secret.length < 32) throw new Error('createSdkTokens needs a secret of at least 32 characters');
  const ttlSeconds = options.ttlSeconds ?? SDK_TOKEN_DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > SDK_TOKEN_MAX_TTL_SECONDS) {
    throw new Error(`createSdkTokens: ttlSeconds must be a whole number in 1..${SDK_TOKEN_MAX_TTL_SECONDS}`);
  }
  const key = new TextEncoder().encode(options.secret);
  const now = options.now ?? (() => new Date());
  const clockTolerance = options.clockToleranceSeconds ?? 30;

  return {
    async issue(claims) {
      const issuedAt = Math.floor(now().getTime() / 1000);
      const exp = issuedAt + ttlSeconds;
      const payload = claimsSchema.parse({
        typ: 'sdk',
        tenant_id: claims.tenantId,
        project_id: claims.projectId,
        channel_id: claims.channelId,
        origin: claims.origin,
        sub: claims.sub,
        exp,
      });
      const token = await new SignJWT({ ...payload, iat: issuedAt })
        .setProtectedHeader({ alg: 'HS256', typ: HEADER_TYP })
        .sign(key);
      return { token, expiresAt: new Date(exp * 1000) };
    },

    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          typ: HEADER_TYP,
          requiredClaims: ['exp', 'sub'],
          clockTolerance,
          currentDate: now(),
        }));
      } catch (error) {
        return { ok: false, reason: failureReason(error) };
      }
      const parsed = claimsSchema.safeParse(payload);
      if (!parsed.success) return { ok: false, reason: 'claims' };
      const c = parsed.data;
      return {
        ok: true,
        claims: {
          tenantId: c.tenant_id,
          projectId: c.project_id,
          sub: c.sub,
          ...(c.channel_id === undefined ? {} : { channelId: c.channel_id }),
          ...(c.origin === undefined ? {} : { origin: c.origin }),
        },
        expiresAt: new Date(c.exp * 1000),
      };
    },
  };
}

function failureReason(error: unknown): VerifySdkTokenFailureReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return 'claims';
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JOSEAlgNotAllowed) {
    return 'signature';
  }
  return 'malformed';
}
