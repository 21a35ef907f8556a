import { isUnstorableTextError, ParleyError } from '@parley/platform';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Caller } from '../auth/caller.js';
import type { Principal } from '../auth/principal.js';
import { type ApiFamily, familyOfUrl, toErrorReply } from './toErrorReply.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which API the route belongs to; picks the error envelope (default `platform`). */
    apiFamily?: ApiFamily;
  }
  interface FastifyRequest {
    /** The authenticated API key, set by requireApiKey. */
    principal: Principal | null;
    /** The authenticated caller (API key or user JWT), set by requireCaller. */
    caller: Caller | null;
  }
}

/**
 * The one error handler (every envelope of spec 000 §7 via toErrorReply), the
 * 404 of unknown routes, and the x-request-id response header. Registered
 * without encapsulation so it covers every route of the app.
 */
const plugin: FastifyPluginAsync = async (app) => {
  app.decorateRequest('principal', null);
  app.decorateRequest('caller', null);

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((error, request, reply) => {
    // Errors raised before routing (no route config) use the platform family.
    const config = request.routeOptions.config as { apiFamily?: ApiFamily } | undefined;
    const family = config?.apiFamily ?? 'platform';
    const { status, body, headers } = toErrorReply(error, { family, requestId: request.id });
    if (isServiceUnavailable(body)) {
      // During an outage every request fails alike: a warning each, without the stack, is enough.
      const { message, code } = error as { message?: unknown; code?: unknown };
      request.log.warn({ err: { message, code } }, 'dependency unavailable');
    } else if (status >= 500) request.log.error({ err: error }, 'request failed');
    // A 400 all the same, but a boundary check is missing: worth an operator's look.
    else if (isUnstorableTextError(error))
      request.log.warn({ err: error }, 'unchecked request text reached PostgreSQL');
    return reply.status(status).headers(headers).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const notFound = new ParleyError('NOT_FOUND', 404, `no route for ${request.method} ${path}`);
    const { status, body } = toErrorReply(notFound, { family: familyOfUrl(path), requestId: request.id });
    return reply.status(status).send(body);
  });
};

function isServiceUnavailable(body: Record<string, unknown>): boolean {
  return (body.error as { code?: unknown } | undefined)?.code === 'SERVICE_UNAVAILABLE';
}

export const errorHandlerPlugin = fp(plugin, { name: '@parley/http/errors', fastify: '5.x' });
