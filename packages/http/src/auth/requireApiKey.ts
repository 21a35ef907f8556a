import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { assertNever } from '../assertNever.js';
import {
  authenticationFailed,
  permissionRequired,
  platformApiKeyRequired,
  projectNotFound,
} from '../errors/httpError.js';
import { classifyCredential } from './classifyCredential.js';
import type { Principal, VerifyApiKey } from './principal.js';

export interface RequireApiKeyOptions {
  verify: VerifyApiKey;
  /** The permission the route needs (e.g. `recording:read`). */
  permission: string;
  /** Path parameter holding the project id the key must be bound to; null for routes without one. */
  projectParam?: string | null;
  /** Accept `Authorization: Bearer plat_…` too (recordings API); the analytics APIs take x-api-key only. */
  allowBearer: boolean;
}

/**
 * The first two checks of every API-key route: the credential type (403 PLATFORM_API_KEY_REQUIRED:
 * a JWT, public or SDK key where a platform key is needed) and the key itself (401, one body for
 * every reason). Answers the key's principal; the caller checks what the key may reach.
 */
export async function authenticateApiKey(
  request: FastifyRequest,
  options: { verify: VerifyApiKey; allowBearer: boolean },
): Promise<Principal> {
  const credential = classifyCredential(request, { allowBearer: options.allowBearer });
  let key: string;
  switch (credential.kind) {
    case 'apiKey':
      key = credential.key;
      break;
    case 'refused':
      throw platformApiKeyRequired();
    case 'invalid':
    case 'missing':
      throw authenticationFailed();
    default:
      return assertNever(credential);
  }

  const verified = await options.verify(key);
  if (!verified.ok) {
    switch (verified.reason) {
      case 'malformed':
      case 'unknown':
      case 'expired':
      case 'revoked':
        request.log.info({ reason: verified.reason }, 'API key refused');
        throw authenticationFailed();
      default:
        return assertNever(verified.reason);
    }
  }
  return verified.principal;
}

/**
 * A preHandler that authenticates a platform API key and sets
 * `request.principal`. Order of checks, each with its spec 000 §5/§7 answer:
 * credential type (403 PLATFORM_API_KEY_REQUIRED), the key itself (401, one
 * body for every reason), the project binding (404 PROJECT_NOT_FOUND, decided
 * by comparing ids only: the path's project is never looked up, so the answer
 * and its timing cannot tell whether it exists), then the permission
 * (403 PERMISSION_REQUIRED). The project comes before the permission so a key
 * of another project never learns more than "not found".
 */
export function requireApiKey(options: RequireApiKeyOptions): preHandlerAsyncHookHandler {
  const projectParam = options.projectParam === undefined ? 'projectId' : options.projectParam;

  return async (request) => {
    const principal = await authenticateApiKey(request, options);

    if (projectParam !== null) {
      const projectId = (request.params as Record<string, unknown> | undefined)?.[projectParam];
      if (projectId !== principal.projectId) throw projectNotFound();
    }
    if (!principal.permissions.includes(options.permission)) throw permissionRequired(options.permission);

    request.principal = principal;
  };
}
