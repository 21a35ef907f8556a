import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { z } from 'zod';
import type { VerifyJwt, VerifyJwtFailureReason } from './caller.js';

export interface JwtVerifierOptions {
  /** HS256 shared secret (config JWT_SECRET). */
  secret?: string | undefined;
  /** JWKS of the identity provider for asymmetric tokens (config JWT_JWKS_URL). */
  jwksUrl?: string | undefined;
  /** Required `iss` when set (JWT_ISSUER). */
  issuer?: string | undefined;
  /** Required `aud` when set (JWT_AUDIENCE). */
  audience?: string | undefined;
  /** Scopes of the `scope` claim to permissions; packages/auth's expandScopes, the same table as API keys. */
  expandScopes: (scopes: readonly string[]) => readonly string[];
  /**
   * The projects among `projectIds` that exist and belong to the tenant `tenantId`, in any order;
   * null when there is no such tenant (packages/auth's `tenantProjects`). Required: the claims are
   * the identity provider's word, and a token must never reach a project of another tenant because
   * its `project_ids` names one (issue 17).
   */
  tenantProjects: TenantProjects;
  /** Clock skew allowed on exp/nbf/iat, seconds (default 30). */
  clockToleranceSeconds?: number;
}

/** Asymmetric algorithms accepted from the JWKS; `none` and HS* never come from there. */
const JWKS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];

/** See JwtVerifierOptions.tenantProjects. */
export type TenantProjects = (
  tenantId: string,
  projectIds: readonly string[],
) => Promise<readonly string[] | null>;

/**
 * The claims Parley reads (docs/api.md "Authentication"): `sub`, `tenant_id`,
 * `project_ids` (the projects the user reaches; none means none) and `scope`
 * (space-separated, RFC 9068 §2.2.3, the same names as API key scopes). A token without
 * `tenant_id` is authentic but acts for no tenant: `no_tenant` (403 TENANT_CONTEXT_REQUIRED).
 */
const claimsSchema = z.object({
  sub: z.string().min(1).max(256),
  tenant_id: z.string().min(1).max(128).optional(),
  project_ids: z.array(z.string().min(1).max(128)).max(1000).default([]),
  scope: z.string().max(4096).default(''),
});

/**
 * Verifies user JWT bearer tokens with jose: HS256 with a shared secret, or
 * the asymmetric algorithms above against a JWKS fetched from `jwksUrl`
 * (jose caches it and refetches on an unknown `kid`, at most every 30 s). The
 * token's `alg` picks the key: HS256 needs the secret, the others the JWKS.
 * `exp` is required; `iss` and `aud` are checked when configured. The caller it makes has a tenant
 * that exists and only that tenant's projects.
 */
export function createJwtVerifier(options: JwtVerifierOptions): VerifyJwt {
  if (options.secret === undefined && options.jwksUrl === undefined) {
    throw new Error('createJwtVerifier needs a secret or a JWKS URL');
  }
  const secret = options.secret === undefined ? undefined : new TextEncoder().encode(options.secret);
  const jwks = options.jwksUrl === undefined ? undefined : createRemoteJWKSet(new URL(options.jwksUrl));
  const algorithms = [...(secret ? ['HS256'] : []), ...(jwks ? JWKS_ALGORITHMS : [])];

  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (header.alg === 'HS256' && secret !== undefined) return secret;
    if (jwks !== undefined && header.alg !== 'HS256') return jwks(header, token);
    throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  };

  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        algorithms,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: options.clockToleranceSeconds ?? 30,
        ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
        ...(options.audience === undefined ? {} : { audience: options.audience }),
      }));
    } catch (error) {
      return { ok: false, reason: failureReason(error) };
    }
    // An SDK session token (sdkTokens.ts) is never a user JWT, even under a shared secret.
    if (payload.typ === 'sdk') return { ok: false, reason: 'claims' };
    const claims = claimsSchema.safeParse(payload);
    if (!claims.success) return { ok: false, reason: 'claims' };
    const tenantId = claims.data.tenant_id;
    if (tenantId === undefined) return { ok: false, reason: 'no_tenant' };
    // Only the named projects that are the tenant's: any other is one the token does not reach
    // (404 PROJECT_NOT_FOUND), whether it exists elsewhere or not.
    const owned = await options.tenantProjects(tenantId, claims.data.project_ids);
    if (owned === null) return { ok: false, reason: 'unknown_tenant' };
    const scopes = claims.data.scope.split(' ').filter((s) => s !== '');
    return {
      ok: true,
      caller: {
        subject: claims.data.sub,
        tenantId,
        projectIds: claims.data.project_ids.filter((id) => owned.includes(id)),
        scopes,
        permissions: options.expandScopes(scopes),
      },
    };
  };
}

function failureReason(error: unknown): VerifyJwtFailureReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return 'claims';
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return 'signature';
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return 'unavailable';
  // jose's plain JOSEError (ERR_JOSE_GENERIC): the JWKS answered something other than 200.
  if (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC') return 'unavailable';
  if (error instanceof errors.JOSEError) return 'malformed';
  // A network failure fetching the JWKS surfaces as a plain error.
  return 'unavailable';
}
