import type { FastifyPluginAsync, FastifyReply, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { rateLimited } from '../errors/httpError.js';
import type { RateLimiter } from './rateLimiter.js';

export interface TenantRateLimitOptions {
  limiter: RateLimiter;
  /** Requests per window when limitFor has no answer (config RATE_LIMIT_PER_SECOND). */
  defaultLimit: number;
  /** A tenant's own limit, if it has one. */
  limitFor?: (tenantId: string) => number | undefined | Promise<number | undefined>;
  /** Default 1000: spec 000 §8 counts the tenant request rate per second. */
  windowMs?: number;
}

/**
 * Per-tenant request rate limit (spec 000 §8) on every route that has a
 * principal or caller (requireApiKey, requireCaller). It adds a preHandler at the END of each route's own preHandlers,
 * so it runs after requireApiKey has set `request.principal`; requests without
 * one (health, refused credentials) are not counted. Register it before the
 * routes it covers.
 *
 * Headers: `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds of the
 * window reset) on every counted response; on 429 also `Retry-After`
 * (seconds) from the error mapper. If the limiter fails (Redis down) the
 * request goes through and the failure is logged: an outage of the limiter
 * must not become an outage of the API.
 */
const plugin: FastifyPluginAsync<TenantRateLimitOptions> = async (app, options) => {
  const windowMs = options.windowMs ?? 1000;

  const enforce: preHandlerAsyncHookHandler = async (request, reply) => {
    const tenantId = request.caller?.tenantId ?? request.principal?.tenantId;
    if (tenantId === undefined) return;
    const limit = (await options.limitFor?.(tenantId)) ?? options.defaultLimit;
    let decision: Awaited<ReturnType<RateLimiter['consume']>>;
    try {
      decision = await options.limiter.consume(`tenant:${tenantId}`, limit, windowMs);
    } catch (err) {
      request.log.warn({ err, tenantId }, 'rate limiter unavailable; request allowed');
      return;
    }
    setHeaders(reply, decision.remaining, decision.resetAt);
    if (!decision.allowed) throw rateLimited(decision.resetAt - Date.now());
  };

  app.addHook('onRoute', (route) => {
    const own = route.preHandler;
    const list = own === undefined ? [] : Array.isArray(own) ? [...own] : [own];
    route.preHandler = [...list, enforce];
  });
};

function setHeaders(reply: FastifyReply, remaining: number, resetAt: number): void {
  reply.header('x-ratelimit-remaining', String(remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(resetAt / 1000)));
}

export const tenantRateLimitPlugin = fp(plugin, {
  name: '@parley/http/rate-limit',
  fastify: '5.x',
  dependencies: ['@parley/http/errors'],
});
