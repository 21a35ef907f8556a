/**
 * Connection-class errors: a dependency (PostgreSQL, Redis, NATS) is unreachable, restarting or
 * refusing sessions. They say nothing about the request, only that it could not be served now: the
 * API answers them 503 SERVICE_UNAVAILABLE with Retry-After (never 500), the worker's loops pause
 * and retry with backoff. Everything else stays an internal error.
 */

/** SQLSTATEs that mean "the database cannot serve you right now", not "your statement is wrong". */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: a fast or smart shutdown ended the session (a restart)
  '57P02', // crash_shutdown: another backend crashed; the postmaster resets every session
  '57P03', // cannot_connect_now: starting up, shutting down, or in recovery
  '57P05', // idle_session_timeout
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded (e.g. connection limit of a role)
  '58030', // io_error
]);

/** Socket and resolver errors of a dependency that is down or unreachable. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Messages of node-postgres, pg-pool and ioredis for a lost or unobtainable connection: these errors
 * carry no code. Matched at the start of the message only.
 */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated', // pg: the server closed the socket (also "… unexpectedly", "… due to connection timeout")
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect', // pg-pool: no connection within connectionTimeoutMillis
  'Query read timeout',
  'Connection is closed', // ioredis
  'Command timed out', // ioredis commandTimeout
  "Stream isn't writeable", // ioredis without an offline queue
  'Reached the max retries per request limit', // ioredis MaxRetriesPerRequestError
];

/** Error classes of ioredis and the NATS client for a connection that is gone or never came. */
const UNAVAILABLE_NAMES = new Set([
  'MaxRetriesPerRequestError',
  'ClosedConnectionError',
  'ConnectionError',
  'DrainingConnectionError',
]);

/** True when `err` (or an error it wraps: `cause`, AggregateError's `errors`) is connection-class. */
export function isConnectionError(err: unknown): boolean {
  return visit(err, 0);
}

function visit(err: unknown, depth: number): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') {
    // Class 08: connection exception (08000, 08001, 08003, 08004, 08006, 08P01, …).
    if (/^08[0-9A-Z]{3}$/.test(e.code) || UNAVAILABLE_SQLSTATES.has(e.code)) return true;
    if (UNAVAILABLE_ERRNOS.has(e.code)) return true;
  }
  if (typeof e.name === 'string' && UNAVAILABLE_NAMES.has(e.name)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => (e.message as string).startsWith(m)))
    return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => visit(inner, depth + 1))) return true;
  return visit(e.cause, depth + 1);
}
