import { ParleyError } from '@parley/platform';

/**
 * How an error is shaped on the wire (spec 000 §7):
 * - `standard`: `{ success: false, error: { code, message } }` (+ `required` on 403 PERMISSION_REQUIRED).
 * - `analytics`: `{ success: false, error: { code, message, details }, message, required }`.
 * - `authentication`: the 401 body `{ error, requestId }` (no success, no code).
 * - `rateLimited`: 429; its body depends on the API family (see toErrorReply).
 * Unset: the route's API family decides between `standard` and `analytics`.
 */
export type EnvelopeKind = 'standard' | 'analytics' | 'authentication' | 'rateLimited';

export interface HttpErrorOptions {
  envelope?: EnvelopeKind;
  /** What the request needed: the permission on 403 PERMISSION_REQUIRED, the rule on analytics 400s. */
  required?: string;
  details?: Record<string, unknown>;
  /** 429: how long until the window resets; 503: when to try again. Sent as Retry-After (seconds). */
  retryAfterMs?: number;
  cause?: unknown;
}

/** A ParleyError that also says which envelope it travels in. */
export class HttpError extends ParleyError {
  readonly envelope: EnvelopeKind | undefined;
  readonly required: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: string, status: number, message: string, options: HttpErrorOptions = {}) {
    super(code, status, message, { cause: options.cause, details: options.details });
    this.name = 'HttpError';
    this.envelope = options.envelope;
    this.required = options.required;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** One fixed message for every 401, so the body never says why the credential failed. */
export const AUTHENTICATION_MESSAGE = 'Missing or invalid API key';

/** The 401 message of routes that take a user's JWT as well as an API key (requireCaller). */
export const CREDENTIALS_MESSAGE = 'Missing or invalid credentials';

/** 401 in the authentication envelope: missing, malformed, unknown, expired and revoked look the same. */
export function authenticationFailed(message: string = AUTHENTICATION_MESSAGE): HttpError {
  return new HttpError('UNAUTHORIZED', 401, message, { envelope: 'authentication' });
}

/** 403 for a credential of a type the route does not take (an app assertion, a `pk_` key, an SDK token). */
export function credentialTypeRefused(): HttpError {
  return new HttpError(
    'FORBIDDEN',
    403,
    'This endpoint accepts a platform API key (plat_…) or a user JWT bearer token',
  );
}

export function permissionRequired(permission: string): HttpError {
  return new HttpError('PERMISSION_REQUIRED', 403, `This API key lacks the permission ${permission}`, {
    required: permission,
  });
}

export function platformApiKeyRequired(): HttpError {
  return new HttpError(
    'PLATFORM_API_KEY_REQUIRED',
    403,
    'This endpoint accepts only a platform API key (plat_…)',
  );
}

/**
 * 403 for an authentic credential that acts for no known tenant: a user JWT without `tenant_id`, or
 * whose `tenant_id` names no tenant (spec 001 §7 "tenant context required").
 */
export function tenantContextRequired(): HttpError {
  return new HttpError('TENANT_CONTEXT_REQUIRED', 403, 'tenant context required');
}

/** Same body whether the project exists or not: the caller learns only that its key does not reach it. */
export function projectNotFound(): HttpError {
  return new HttpError('PROJECT_NOT_FOUND', 404, 'Project not found');
}

export function rateLimited(retryAfterMs: number): HttpError {
  return new HttpError('RATE_LIMIT_EXCEEDED', 429, 'Too many requests', {
    envelope: 'rateLimited',
    retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)),
  });
}

/** An analytics API error (spec 000 §7): always in the analytics envelope, wherever it is thrown. */
export function analyticsError(
  code: string,
  status: number,
  message: string,
  options: { details?: Record<string, unknown>; required?: string } = {},
): HttpError {
  return new HttpError(code, status, message, { ...options, envelope: 'analytics' });
}

/**
 * Seconds a client is asked to wait (Retry-After) while a dependency of the request (PostgreSQL,
 * Redis) is unavailable: short, since most outages are restarts of a few seconds, and clients back
 * off exponentially on 503 anyway (spec 000 §7).
 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** 503 SERVICE_UNAVAILABLE (spec 000 §7) with Retry-After: a dependency the request needs is down. */
export function serviceUnavailable(cause?: unknown): HttpError {
  return new HttpError('SERVICE_UNAVAILABLE', 503, 'Service unavailable', {
    retryAfterMs: SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS * 1000,
    cause,
  });
}
