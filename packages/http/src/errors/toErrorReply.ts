import { isConnectionError, isUnstorableTextError, ParleyError } from '@parley/platform';
import { assertNever } from '../assertNever.js';
import { type EnvelopeKind, HttpError, serviceUnavailable } from './httpError.js';

/**
 * The API a route belongs to; it picks the envelope of errors that do not
 * name one. `platform`: /api/v1 and everything else; `recordings` and
 * `analytics`: the public APIs of spec 000 §4.
 */
export type ApiFamily = 'platform' | 'recordings' | 'analytics';

/**
 * The API family of a URL, for answers given where no route says (an unknown path, the router's
 * own errors): the analytics APIs (spec 000 §4.2, §4.3) have an envelope of their own.
 */
export const familyOfUrl = (url: string): ApiFamily =>
  url.startsWith('/api/public/analytics/') ? 'analytics' : 'platform';

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Codes of 4xx errors Fastify raises itself (bad JSON, body too large, …); always the standard envelope. */
const fastifyClientCodes: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
};

const hiddenMessages: Record<number, string> = { 503: 'Service unavailable' };

/**
 * The one mapper from an error to the spec's envelopes (spec 000 §7). Pure:
 * the error handler logs and sends what this returns.
 */
export function toErrorReply(error: unknown, context: { family: ApiFamily; requestId: string }): ErrorReply {
  if (isUnavailable(error)) return fromParleyError(serviceUnavailable(error), context);
  if (error instanceof ParleyError) return fromParleyError(error, context);
  // The backstop of the request checks (addRoute's): text PostgreSQL refused is the request's fault.
  if (isUnstorableTextError(error)) return fromParleyError(unstorableText(), context);

  const status = statusOf(error);
  if (status !== undefined && status >= 400 && status < 500) {
    const validation = isValidationError(error);
    const code = validation ? 'VALIDATION_ERROR' : (fastifyClientCodes[status] ?? 'BAD_REQUEST');
    const message = validation ? validationMessage(error) : messageOf(error);
    return { status, headers: {}, body: standard(code, message) };
  }
  return fromParleyError(new ParleyError('INTERNAL_ERROR', 500, 'unexpected failure'), context);
}

function fromParleyError(error: ParleyError, context: { family: ApiFamily; requestId: string }): ErrorReply {
  const http = error instanceof HttpError ? error : undefined;
  const status = error.status;
  // 5xx: the code stays (it is stable and safe), the message never leaves the process.
  const message = status >= 500 ? (hiddenMessages[status] ?? 'Internal error') : error.message;
  const kind: EnvelopeKind = http?.envelope ?? (context.family === 'analytics' ? 'analytics' : 'standard');
  const headers: Record<string, string> = {};
  if (http?.retryAfterMs !== undefined) headers['retry-after'] = String(Math.ceil(http.retryAfterMs / 1000));

  const analytics = (details: Record<string, unknown> | undefined) => ({
    success: false,
    error: { code: error.code, message, details: details ?? {} },
    message,
    required: http?.required ?? '',
  });

  switch (kind) {
    case 'standard': {
      const body: Record<string, unknown> = standard(error.code, message);
      if (error.exposeDetails && error.details !== undefined && status < 500) {
        body.error = { code: error.code, message, details: error.details };
      }
      if (http?.required !== undefined) body.required = http.required;
      // 429 QUEUE_FULL (spec 000 §7): "retry after retryAfterMs", beside the standard error.
      // A 503 carries only the Retry-After header (spec 000 platform table).
      if (status === 429 && http?.retryAfterMs !== undefined)
        body.retryAfterMs = Math.ceil(http.retryAfterMs);
      return { status, headers, body };
    }
    case 'analytics':
      return { status, headers, body: analytics(error.details) };
    case 'authentication':
      return { status, headers, body: { error: message, requestId: context.requestId } };
    case 'rateLimited': {
      const retryAfterMs = http?.retryAfterMs ?? 0;
      switch (context.family) {
        case 'platform':
          return { status, headers, body: { error: message, retryAfterMs } };
        case 'recordings':
          return { status, headers, body: { ...standard(error.code, message), retryAfterMs } };
        case 'analytics':
          return { status, headers, body: analytics({ ...error.details, retryAfterMs }) };
        default:
          return assertNever(context.family);
      }
    }
    default:
      return assertNever(kind);
  }
}

/** 400 VALIDATION_ERROR for text that reached PostgreSQL unchecked; which field it was is not known here. */
const unstorableText = () =>
  new ParleyError(
    'VALIDATION_ERROR',
    400,
    'The request contains text that cannot be stored (U+0000 or an unpaired surrogate)',
  );

/**
 * A dependency is down (isConnectionError), not a fault of the request or of Parley: 503 with
 * Retry-After rather than 500. A ParleyError keeps its own answer unless it is a 500 wrapping such a
 * failure; a 4xx is always the request's own.
 */
function isUnavailable(error: unknown): boolean {
  if (error instanceof ParleyError) return error.status === 500 && isConnectionError(error.cause);
  const status = statusOf(error);
  if (status !== undefined && status < 500) return false;
  return isConnectionError(error);
}

function standard(
  code: string,
  message: string,
): { success: false; error: { code: string; message: string } } {
  return { success: false, error: { code, message } };
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' ? status : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : 'Bad request';
}

function isValidationError(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'FST_ERR_VALIDATION';
}

/** Zod issues as one short line (`querystring.limit: Too big…`); never the values themselves. */
function validationMessage(error: unknown): string {
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return messageOf(error);
  const where = String((error as { validationContext?: unknown }).validationContext ?? 'request');
  return issues
    .slice(0, 5)
    .map((issue: { path?: unknown[]; message?: string }) => {
      const path = [where, ...(issue.path ?? []).map(String)].join('.');
      return `${path}: ${issue.message ?? 'invalid'}`;
    })
    .join('; ');
}
