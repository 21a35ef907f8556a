import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** The longest path parameter the router takes (buildApp's maxParamLength); longer: 414. */
export const MAX_PARAM_LENGTH = 2048;

const envelope = (code: string, message: string) =>
  JSON.stringify({ success: false, error: { code, message } });

/**
 * Errors Fastify's router answers before any route or error handler runs, in the standard envelope
 * (spec 000 §7) instead of Fastify's own body: a path parameter over MAX_PARAM_LENGTH is 414
 * `URI_TOO_LONG`, a URL whose percent-encoding is not UTF-8 is 400 `BAD_REQUEST`. The messages never
 * echo the path (it can hold a media token). Fastify's `frameworkErrors` option.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply
      .status(414)
      .type('application/json')
      .send(envelope('URI_TOO_LONG', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`));
    return;
  }
  reply
    .status(400)
    .type('application/json')
    .send(envelope('BAD_REQUEST', 'The URL is not valid (bad percent-encoding)'));
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
