import { HttpError } from '@parley/http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The request headers a widget sends to the SDK endpoints (and the conversation endpoints with an SDK token). */
export const SDK_CORS_ALLOWED_HEADERS = 'X-API-Key, X-Public-Key, X-SDK-Token, Content-Type';
/** How long a browser may cache a preflight answer, seconds. */
export const SDK_CORS_MAX_AGE_SECONDS = 600;

export const originNotAllowed = (): HttpError =>
  new HttpError('ORIGIN_NOT_ALLOWED', 403, 'This origin is not allowed for this public key');

/**
 * CORS headers for one origin that was checked against an allowed list. Never
 * `*` and never without `Vary: Origin`, so a shared cache does not hand one
 * site's answer to another.
 */
export function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('vary', 'Origin');
  reply.header('access-control-expose-headers', 'x-request-id');
}

/**
 * Answers a CORS preflight: 204 with the CORS headers when `listed`, else 403
 * ORIGIN_NOT_ALLOWED with no CORS header at all (the browser then refuses the
 * request itself). A preflight carries no credential, so `listed` can only say
 * whether some active key lists the origin; the request that follows is
 * checked against its own key.
 */
export function answerPreflight(
  reply: FastifyReply,
  origin: string | undefined,
  listed: boolean,
  methods: string,
): FastifyReply {
  reply.header('vary', 'Origin');
  if (origin === undefined || !listed) throw originNotAllowed();
  allowOrigin(reply, origin);
  reply.header('access-control-allow-methods', methods);
  reply.header('access-control-allow-headers', SDK_CORS_ALLOWED_HEADERS);
  reply.header('access-control-max-age', String(SDK_CORS_MAX_AGE_SECONDS));
  return reply.status(204).send();
}

/** The Origin header when it is one plain string. */
export function originOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const origin = headers.origin;
  return typeof origin === 'string' && origin.length > 0 && origin.length <= 2048 ? origin : undefined;
}

/**
 * The origin a browser request comes from: its Origin header; else, for a same-origin request, this
 * server's own origin. Browsers send no Origin with a same-origin GET but do send the (unforgeable by
 * a page) `Sec-Fetch-Site: same-origin`: a page served by the API itself, the widget demo page at
 * /sdk/widget, then passes the same allowed-origins check as any other page.
 */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = originOf(request.headers);
  if (origin !== undefined) return origin;
  return request.headers['sec-fetch-site'] === 'same-origin'
    ? `${request.protocol}://${request.host}`
    : undefined;
}
