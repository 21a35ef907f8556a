import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { ChildLoggerOptions } from 'fastify/types/logger.js';

/** The path segment after `/media/content/` is a media token: a bearer secret. */
const MEDIA_TOKEN_SEGMENT = /(\/media\/content\/)[^/?#]*/gi;

/**
 * Secrets some platforms can only put in the query string (the VoiceXML hook's `?token=`, a
 * Meta verify token), and end users' phone numbers (the sessions API's `callerNumber`, which the
 * console sends): their values are redacted, names kept.
 */
const SECRET_QUERY_PARAMETER = /([?&](?:token|hub\.verify_token|access_token|callerNumber)=)[^&#]*/gi;

/** A request URL fit for logs: media tokens and the parameters above replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(MEDIA_TOKEN_SEGMENT, '$1[redacted]').replace(SECRET_QUERY_PARAMETER, '$1[redacted]');
}

/** Fastify's own request serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Fastify `childLoggerFactory`: every request's logger serializes `req` with serializeRequest, so
 * that `incoming request` (and any log of the request) never carries a media token.
 */
export function redactingChildLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return logger.child(bindings, {
    ...options,
    serializers: { ...options.serializers, req: serializeRequest },
  });
}
