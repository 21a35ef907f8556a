import type { Socket } from 'node:net';
import { ParleyError } from '@parley/platform';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { familyOfUrl, toErrorReply } from './toErrorReply.js';

/** The longest path parameter the router takes (buildApp's maxParamLength); longer: 414. */
export const MAX_PARAM_LENGTH = 2048;

const envelope = (code: string, message: string) =>
  JSON.stringify({ success: false, error: { code, message } });

/**
 * Errors Fastify's router answers before any route or error handler runs, in the envelope of the
 * URL's API family (spec 000 §7) instead of Fastify's own body: a path parameter over
 * MAX_PARAM_LENGTH is 414 `URI_TOO_LONG`, a URL whose percent-encoding is not UTF-8 is 400
 * `BAD_REQUEST`. The messages never echo the path (it can hold a media token). Fastify's
 * `frameworkErrors` option.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const refusal =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ParleyError('URI_TOO_LONG', 414, `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`)
      : new ParleyError('BAD_REQUEST', 400, 'The URL is not valid (bad percent-encoding)');
  const { status, body } = toErrorReply(refusal, { family: familyOfUrl(request.url), requestId: request.id });
  reply.header('x-request-id', request.id).status(status).type('application/json').send(JSON.stringify(body));
}

const CLIENT_ERRORS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    message: 'The request headers are larger than the server accepts (16 KiB)',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'REQUEST_TIMEOUT',
    message: 'The request was not received in time',
  },
};
const MALFORMED = {
  status: 400,
  reason: 'Bad Request',
  code: 'BAD_REQUEST',
  message: 'Malformed HTTP request',
};

/**
 * What the HTTP server answers a request it could not parse (Node's `clientError`: headers over
 * 16 KiB, a timeout, malformed HTTP), in the standard envelope. Fastify's `clientErrorHandler`.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  const body = envelope(answer.code, answer.message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
