import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Fastify's `genReqId`: a caller's x-request-id is kept when it is a plain
 * token, so logs can be joined across services; otherwise we make one.
 */
export function requestIdFromHeader(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
