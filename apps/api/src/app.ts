import { randomUUID } from 'node:crypto';
import { type Logger, ParleyError } from '@parley/platform';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { healthRoutes, type ReadinessChecks } from './routes/health.js';

export interface AppOptions {
  logger: Logger;
  readiness: ReadinessChecks;
  /** Request body limit in bytes (spec 000 §8: 1 MB standard). */
  bodyLimit?: number;
}

/** Codes for 4xx errors raised by Fastify itself (malformed JSON, body too large, …). */
const clientErrorCodes: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The API as a Fastify instance that does not listen (server.ts does), so
 * tests drive it with app.inject.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 1_000_000,
    // A caller's x-request-id is kept when it is a plain token, so logs can be
    // joined across services; otherwise we make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // One error handler: coded errors keep their code and status; 5xx messages
  // are never shown to the caller (spec 000 §7 envelopes).
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ParleyError) {
      if (error.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.status(error.status).send({
        success: false,
        error: { code: error.code, message: error.status >= 500 ? 'Internal error' : error.message },
      });
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = clientErrorCodes[status] ?? 'BAD_REQUEST';
      return reply
        .status(status)
        .send({ success: false, error: { code, message: (error as Error).message } });
    }
    request.log.error({ err: error }, 'request failed');
    return reply
      .status(500)
      .send({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal error' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      success: false,
      error: { code: 'NOT_FOUND', message: `no route for ${request.method} ${request.url.split('?')[0]}` },
    }),
  );

  await app.register(healthRoutes, { checks: options.readiness });
  return app;
}
