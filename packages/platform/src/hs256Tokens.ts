import { errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { z } from 'zod';

export type VerifyTokenFailureReason = 'malformed' | 'signature' | 'expired' | 'claims';

export type VerifiedToken<Read> = ({ ok: true } & Read) | { ok: false; reason: VerifyTokenFailureReason };

/** What a token holds besides `iat`: its claims, `exp` (Unix seconds) among them. */
type ClaimsShape = z.ZodType<{ exp: number }>;

export interface Hs256TokenOptions<S extends ClaimsShape> {
  /** The HS256 secret, at least 32 characters; never logged. */
  secret: string;
  /** For the errors a misconfiguration throws (`createSdkTokens`, …). */
  name: string;
  /**
   * The JWS header `typ` (RFC 8725 §3.11 explicit typing): tokens of one kind never verify as
   * another, even under the same secret.
   */
  headerTyp: string;
  /** The payload's claims (`iat` aside): what `sign` writes and what `verify` accepts. */
  claims: S;
  /** Registered claims a token must carry, checked before the schema (`exp` always). */
  requiredClaims?: string[];
  /** Clock skew allowed on exp/iat when verifying, seconds (default 30). */
  clockToleranceSeconds?: number;
  now?: () => Date;
}

export interface Hs256Tokens<S extends ClaimsShape> {
  /** The current time in Unix seconds, by the tokens' clock. */
  nowSeconds(): number;
  /**
   * Signs these claims (validated: throws on claims `verify` would refuse), with `iat` the given
   * issue time (the one `exp` was computed from) or now.
   */
  sign(claims: z.input<S>, issuedAt?: number): Promise<string>;
  /** Verifies the token; `read` turns its claims into what the caller answers with `ok: true`. */
  verify<Read extends object>(
    token: string,
    read: (claims: z.output<S>) => Read,
  ): Promise<VerifiedToken<Read>>;
}

/**
 * The one module for Parley's own HS256 JWTs (jose): SDK session tokens (packages/http) and SDK
 * channel share/embed tokens (packages/channels) are a claims schema and a header `typ` each.
 * The key is the secret's UTF-8 bytes, so tokens issued before this module keep verifying.
 */
export function createHs256Tokens<S extends ClaimsShape>(options: Hs256TokenOptions<S>): Hs256Tokens<S> {
  if (options.secret.length < 32) throw new Error(`${options.name} needs a secret of at least 32 characters`);
  const key = new TextEncoder().encode(options.secret);
  const now = options.now ?? (() => new Date());
  const clockTolerance = options.clockToleranceSeconds ?? 30;
  const requiredClaims = ['exp', ...(options.requiredClaims ?? [])];
  const nowSeconds = () => Math.floor(now().getTime() / 1000);

  return {
    nowSeconds,
    async sign(claims, issuedAt = nowSeconds()) {
      const payload = options.claims.parse(claims) as JWTPayload;
      return new SignJWT({ ...payload, iat: issuedAt })
        .setProtectedHeader({ alg: 'HS256', typ: options.headerTyp })
        .sign(key);
    },
    async verify(token, read) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          typ: options.headerTyp,
          requiredClaims,
          clockTolerance,
          currentDate: now(),
        }));
      } catch (error) {
        return { ok: false, reason: failureReason(error) };
      }
      const parsed = options.claims.safeParse(payload);
      return parsed.success ? { ok: true, ...read(parsed.data) } : { ok: false, reason: 'claims' };
    },
  };
}

function failureReason(error: unknown): VerifyTokenFailureReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return 'claims';
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JOSEAlgNotAllowed) {
    return 'signature';
  }
  return 'malformed';
}
