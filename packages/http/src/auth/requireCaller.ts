import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { assertNever } from '../assertNever.js';
import {
  authenticationFailed,
  CREDENTIALS_MESSAGE,
  credentialTypeRefused,
  HttpError,
  projectNotFound,
  tenantContextRequired,
} from '../errors/httpError.js';
import { type Caller, callerReaches, type VerifyJwt } from './caller.js';
import { classifyCredential } from './classifyCredential.js';
import type { VerifyApiKey } from './principal.js';
import type { VerifySdkToken } from './sdkTokens.js';

export interface RequireCallerOptions {
  verifyApiKey: VerifyApiKey;
  /** Unset (no JWT_SECRET nor JWT_JWKS_URL configured): a JWT bearer token is answered 401. */
  verifyJwt?: VerifyJwt | undefined;
  /**
   * The permission the route needs (e.g. `chat:write`); null: none, any authenticated caller
   * (GET /api/v1/me only: it tells the caller what it may do).
   */
  permission: string | null;
  /** Path parameter holding the project the caller must reach; null (default) for routes without one. */
  projectParam?: string | null;
  /**
   * True on the conversation endpoints only (spec 001 §5 "other SDK calls"): an `X-SDK-Token` is a
   * credential of this route, not a refused type. Elsewhere (false, the default) it is 403 FORBIDDEN.
   */
  acceptSdkToken?: boolean;
  /** With acceptSdkToken; unset (no SDK_TOKEN_SECRET configured): an SDK token is answered 401. */
  verifySdkToken?: VerifySdkToken | undefined;
}

/** All an SDK token grants: talking to its project's agents. */
export const SDK_TOKEN_PERMISSIONS: readonly string[] = ['chat:write'];

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;
const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/**
 * A preHandler for the platform endpoints that take both credential types of
 * spec 000 §5 "other endpoints": a platform API key (`x-api-key` or
 * `Authorization: Bearer plat_…`) or a user's JWT (`Authorization: Bearer
 * eyJ…`). It sets `request.caller` (and `request.principal` for a key, so the
 * tenant rate limit counts both). Order of checks, as requireApiKey's: the
 * credential (401 in the authentication envelope, one body for every reason;
 * 403 FORBIDDEN for an app assertion, a `pk_` key or, unless `acceptSdkToken`, an SDK token;
 * 403 TENANT_CONTEXT_REQUIRED for a JWT without a tenant or naming an unknown one), the
 * project binding (404 PROJECT_NOT_FOUND, by comparing ids only), then the
 * permission (403 PERMISSION_REQUIRED with `required`).
 */
export function requireCaller(options: RequireCallerOptions): preHandlerAsyncHookHandler {
  const projectParam = options.projectParam ?? null;

  return async (request, reply) => {
    const caller = await authenticate(request, options);
    // A widget's page reads the answer only with CORS headers for its origin: the one the token was
    // minted for (POST /api/v1/sdk/init checked it against the public key's allowed origins).
    if (caller.kind === 'sdkToken') {
      reply.header('vary', 'Origin');
      if (caller.origin !== undefined && request.headers.origin === caller.origin) {
        reply.header('access-control-allow-origin', caller.origin);
        reply.header('access-control-expose-headers', 'x-request-id');
      }
    }
    if (projectParam !== null) {
      const projectId = (request.params as Record<string, unknown> | undefined)?.[projectParam];
      if (typeof projectId !== 'string' || !callerReaches(caller, projectId)) throw projectNotFound();
    }
    if (options.permission !== null && !caller.permissions.includes(options.permission)) {
      throw new HttpError(
        'PERMISSION_REQUIRED',
        403,
        `This ${caller.kind === 'apiKey' ? 'API key' : 'token'} lacks the permission ${options.permission}`,
        { required: options.permission },
      );
    }
    request.caller = caller;
  };
}

async function authenticate(request: FastifyRequest, options: RequireCallerOptions): Promise<Caller> {
  if (options.acceptSdkToken === true && request.headers['x-sdk-token'] !== undefined) {
    return authenticateSdkToken(request, options.verifySdkToken);
  }
  const jwt = bearerJwt(request.headers);
  if (jwt !== undefined) {
    if (options.verifyJwt === undefined) {
      request.log.info('JWT bearer refused: no JWT_SECRET or JWT_JWKS_URL configured');
      throw authenticationFailed(CREDENTIALS_MESSAGE);
    }
    const verified = await options.verifyJwt(jwt);
    if (!verified.ok) {
      request.log.info({ reason: verified.reason }, 'JWT refused');
      if (verified.reason === 'no_tenant' || verified.reason === 'unknown_tenant') {
        throw tenantContextRequired();
      }
      throw authenticationFailed(CREDENTIALS_MESSAGE);
    }
    return { kind: 'jwt', ...verified.caller };
  }

  const credential = classifyCredential(request, { allowBearer: true });
  switch (credential.kind) {
    case 'apiKey':
      break;
    case 'refused':
      throw credentialTypeRefused();
    case 'invalid':
    case 'missing':
      throw authenticationFailed(CREDENTIALS_MESSAGE);
    default:
      return assertNever(credential);
  }
  const verified = await options.verifyApiKey(credential.key);
  if (!verified.ok) {
    request.log.info({ reason: verified.reason }, 'API key refused');
    throw authenticationFailed(CREDENTIALS_MESSAGE);
  }
  const { principal } = verified;
  request.principal = principal;
  return {
    kind: 'apiKey',
    subject: principal.keyId,
    tenantId: principal.tenantId,
    projectIds: [principal.projectId],
    scopes: principal.scopes,
    permissions: principal.permissions,
  };
}

/**
 * An `X-SDK-Token` alone (with another credential header it is ambiguous:
 * 401). A token minted for a browser origin is refused (403
 * ORIGIN_NOT_ALLOWED) from another Origin; a request without an Origin header
 * (not a browser) is not refused for that.
 */
async function authenticateSdkToken(
  request: FastifyRequest,
  verify: VerifySdkToken | undefined,
): Promise<Caller> {
  const { headers } = request;
  const token = headers['x-sdk-token'];
  const others = ['x-api-key', 'authorization', 'auth', 'x-public-key'].some((h) => headers[h] !== undefined);
  if (typeof token !== 'string' || others || !JWT.test(token.trim())) {
    throw authenticationFailed(CREDENTIALS_MESSAGE);
  }
  if (verify === undefined) {
    request.log.info('SDK token refused: no SDK_TOKEN_SECRET configured');
    throw authenticationFailed(CREDENTIALS_MESSAGE);
  }
  const verified = await verify(token.trim());
  if (!verified.ok) {
    request.log.info({ reason: verified.reason }, 'SDK token refused');
    throw authenticationFailed(CREDENTIALS_MESSAGE);
  }
  const { claims } = verified;
  const origin = headers.origin;
  if (claims.origin !== undefined && origin !== undefined && origin !== claims.origin) {
    throw new HttpError('ORIGIN_NOT_ALLOWED', 403, 'This SDK token is not valid from this origin');
  }
  return {
    kind: 'sdkToken',
    subject: claims.sub,
    tenantId: claims.tenantId,
    projectIds: [claims.projectId],
    permissions: SDK_TOKEN_PERMISSIONS,
    ...(claims.channelId === undefined ? {} : { channelId: claims.channelId }),
    ...(claims.origin === undefined ? {} : { origin: claims.origin }),
  };
}

/** The token of `Authorization: Bearer eyJ…` when it is the request's only credential header. */
function bearerJwt(headers: FastifyRequest['headers']): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization !== 'string') return undefined;
  const token = BEARER.exec(authorization.trim())?.[1];
  if (token === undefined || !JWT.test(token)) return undefined;
  const others = ['x-api-key', 'auth', 'x-public-key', 'x-sdk-token'].some((h) => headers[h] !== undefined);
  return others ? undefined : token;
}
