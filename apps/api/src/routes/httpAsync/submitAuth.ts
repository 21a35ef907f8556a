import {
  authenticateApiKey,
  authenticationFailed,
  HttpError,
  permissionRequired,
  type VerifyApiKey,
} from '@parley/http';
import type { preHandlerAsyncHookHandler } from 'fastify';

/** What the `channels.http_async` scope grants: submitting messages, nothing else. */
export const HTTP_ASYNC_SUBMIT_PERMISSION = 'http_async:submit';

/** Body field names (lower case, without `-` and `_`) that carry a credential. */
const KEY_FIELDS = new Set(['apikey', 'xapikey', 'key', 'token', 'accesstoken', 'authorization']);
/** A whole platform key (`plat_` and 55 base62, packages/auth apiKey.ts) anywhere in a string. */
const PLATFORM_KEY = /(?<![0-9A-Za-z])plat_[0-9A-Za-z]{55}(?![0-9A-Za-z])/;
const MAX_DEPTH = 32;

const holdsPlatformKey = (value: unknown, depth = 0): boolean => {
  if (typeof value === 'string') return PLATFORM_KEY.test(value);
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((v) => holdsPlatformKey(v, depth + 1));
};

/**
 * A key in the body (a credential-named top-level field, or a platform key inside any value, the
 * message and metadata included) is refused before anything else is looked at, with no echo of
 * it: the key goes in X-API-Key only (spec 001 §4.9), and a key in a body ends up in places
 * headers do not (the log, the agent's prompt, the callback).
 */
export const refuseKeyInBody: preHandlerAsyncHookHandler = async (request) => {
  const body: unknown = request.body;
  if (typeof body !== 'object' || body === null) return;
  const named = Object.keys(body).some((field) => KEY_FIELDS.has(field.toLowerCase().replace(/[-_]/g, '')));
  if (named || holdsPlatformKey(body)) {
    throw new HttpError(
      'API_KEY_IN_BODY',
      400,
      'Send the platform API key in the X-API-Key header, never in the request body; ' +
        'the request was not accepted (rotate the key if it was sent elsewhere like this)',
    );
  }
};

const USE_X_API_KEY =
  'Send the platform API key in the X-API-Key header: Authorization is not accepted on this route';

/**
 * The submit routes' caller check: a platform API key in X-API-Key only (an Authorization header
 * is refused 401, saying where the key goes), then, when `projectOf` names one, the key's project
 * (403 PROJECT_MISMATCH), then the permission (403 PERMISSION_REQUIRED). Sets
 * `request.principal`, so the tenant rate limit counts the request.
 */
export function requireSubmitKey(options: {
  verifyApiKey: VerifyApiKey;
  /** The project the body names; undefined when it names none (validation answers that). */
  projectOf?: (body: unknown) => string | undefined;
}): preHandlerAsyncHookHandler {
  return async (request) => {
    if (request.headers.authorization !== undefined) throw authenticationFailed(USE_X_API_KEY);
    const principal = await authenticateApiKey(request, { verify: options.verifyApiKey, allowBearer: false });
    const projectId = options.projectOf?.(request.body);
    if (projectId !== undefined && projectId !== principal.projectId) {
      throw new HttpError('PROJECT_MISMATCH', 403, 'This API key belongs to another project than project_id');
    }
    if (!principal.permissions.includes(HTTP_ASYNC_SUBMIT_PERMISSION))
      throw permissionRequired(HTTP_ASYNC_SUBMIT_PERMISSION);
    request.principal = principal;
  };
}
