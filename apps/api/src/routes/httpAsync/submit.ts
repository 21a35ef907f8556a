import {
  type HttpAsyncIntake,
  type HttpAsyncSubmitInput,
  MAX_CALLER_SESSION_KEY_LENGTH,
  QueueMissingError,
} from '@parley/channels';
import { addRoute, errorResponses, HttpError, type VerifyApiKey } from '@parley/http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_MESSAGE_CHARS } from '../chat/chatSchemas.js';
import { requireChannelKey } from '../projectResources.js';
import { refuseKeyInBody, requireSubmitKey } from './submitAuth.js';

export interface HttpAsyncSubmitRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Null when CHANNEL_CREDENTIALS_KEY is not configured: the routes answer 503 CHANNELS_NOT_CONFIGURED. */
  intake: Pick<HttpAsyncIntake, 'submit'> | null;
}

/** Largest `metadata`, serialized as JSON (UTF-8 bytes): it travels in every callback. */
export const MAX_METADATA_BYTES = 16 * 1024;

const metadataSchema = z
  .record(z.string(), z.unknown())
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, {
    message: `metadata is larger than ${MAX_METADATA_BYTES} bytes serialized`,
  })
  .describe('Returned unchanged in the callbacks (at most 16 KiB as JSON); never put secrets here');
const messageSchema = z.string().min(1).max(MAX_MESSAGE_CHARS).describe('The user text');
const subscriptionIdSchema = z.string().min(1).max(64);

const messageBody = z.strictObject({
  project_id: z.string().min(1).max(128).describe('The project of the API key and of the subscription'),
  subscription_id: subscriptionIdSchema.describe('The Source ID of the webhook subscription'),
  message: messageSchema,
  session_key: z
    .string()
    .min(1)
    .max(MAX_CALLER_SESSION_KEY_LENGTH)
    .describe(
      'First message: a key of your own (1-256 printable characters, not starting with `ha:`); later messages: ' +
        'the canonical session_key of the acknowledgement, exactly',
    ),
  metadata: metadataSchema.optional(),
});
const sendBody = z.strictObject({
  connectionId: subscriptionIdSchema.describe('The Source ID of the webhook subscription'),
  message: messageSchema,
  metadata: metadataSchema.optional(),
  sessionId: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      'The sessionId of an earlier callback, to continue its conversation; absent: a new conversation',
    ),
});

const ACCEPTED_NOTE =
  'Queued for the agent; the reply arrives as a callback to the subscription’s URL. Store session_key exactly ' +
  'and send it with the next message of this conversation. Do not resend because a callback is late: resend ' +
  'only after a failed request.';

const messageAccepted = z.object({
  message_id: z.string().describe('This message; the callbacks carry it as message_id'),
  session_key: z.string().describe('The canonical conversation key: store it exactly, never rebuild it'),
  status: z.literal('accepted'),
  _note: z.string(),
});
const sendAccepted = z.object({
  success: z.literal(true),
  messageId: z.string(),
  sessionId: z
    .string()
    .nullable()
    .describe('The runtime session when the conversation has one; null when new'),
  status: z.literal('accepted'),
});
const conflict = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z
        .object({ session_key: z.string() })
        .optional()
        .describe('On SESSION_KEY_IN_USE: the canonical key of the conversation this caller key started'),
    }),
  })
  .describe('SUBSCRIPTION_PAUSED, or SESSION_KEY_IN_USE with `error.details.session_key`');

const errors = {
  400: errorResponses.standard,
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  409: conflict,
  429: errorResponses.rateLimited,
  503: errorResponses.standard,
};

/**
 * The HTTP async channel's submit routes (spec 001 §4.9, §5 item 1, §7): a message for the
 * project's agent, acknowledged 202 once queued; the reply goes to the webhook subscription's
 * callback URL. Platform API key in X-API-Key with the scope `channels.http_async`.
 */
export const httpAsyncSubmitRoutes: FastifyPluginAsync<HttpAsyncSubmitRouteOptions> = async (
  app,
  options,
) => {
  const submit = async (
    request: FastifyRequest,
    input: Omit<HttpAsyncSubmitInput, 'tenantId' | 'projectId'>,
  ) => {
    const intake = requireChannelKey(options.intake, 'HTTP async messages');
    const principal = request.principal;
    if (principal == null) throw new Error('submit route reached without a principal');
    try {
      const accepted = await intake.submit({
        ...input,
        tenantId: principal.tenantId,
        projectId: principal.projectId,
      });
      // Ids only: the text and the metadata stay out of the logs.
      request.log.info(
        {
          component: 'http-async',
          messageId: accepted.messageId,
          subscriptionId: input.subscriptionId,
          route: input.route,
        },
        'HTTP async message accepted',
      );
      return accepted;
    } catch (err) {
      // The error handler logs the cause; the answer hides it (5xx).
      if (err instanceof QueueMissingError)
        throw new HttpError('QUEUE_UNAVAILABLE', 503, 'HTTP async messages cannot be queued', { cause: err });
      throw err;
    }
  };
  const accepted = (reply: FastifyReply) => reply.status(202).header('cache-control', 'no-store');
  const common = { tags: ['channels'], security: [{ apiKey: [] }] };

  addRoute(app, {
    ...common,
    method: 'POST',
    url: '/api/v1/channels/http-async/message',
    summary: 'Send a message to the agent; the reply is delivered to the webhook subscription (HTTP async)',
    description:
      'Answers 202 once the message is queued; the agent’s reply is POSTed to the subscription’s callback URL. ' +
      'First message of a conversation: `session_key` is a key of your own; the answer’s canonical `session_key` ' +
      'continues it (409 SESSION_KEY_IN_USE for a key of your own used before, 400 SESSION_KEY_UNKNOWN for a ' +
      'canonical key not issued for this subscription). The API key goes in X-API-Key only (400 API_KEY_IN_BODY).',
    operationId: 'submitHttpAsyncMessage',
    body: messageBody,
    response: { 202: messageAccepted, ...errors },
    preHandler: [
      refuseKeyInBody,
      requireSubmitKey({
        verifyApiKey: options.verifyApiKey,
        projectOf: (body) => {
          const project = (body as { project_id?: unknown } | null)?.project_id;
          return typeof project === 'string' ? project : undefined;
        },
      }),
    ],
    handler: async (request, reply) => {
      const body = request.body;
      // SESSION_KEY_IN_USE carries the canonical key in `error.details` (an exposed detail).
      const done = await submit(request, {
        route: 'message',
        subscriptionId: body.subscription_id,
        text: body.message,
        sessionKey: body.session_key,
        ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
      });
      accepted(reply);
      return {
        message_id: done.messageId,
        session_key: done.sessionKey,
        status: 'accepted' as const,
        _note: ACCEPTED_NOTE,
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: '/api/v1/channels/http_async/send',
    summary: 'Send a message to the agent (earlier HTTP async route shape)',
    description:
      'The earlier shape of submitHttpAsyncMessage: `connectionId` is the subscription’s Source ID; without ' +
      '`sessionId` every message starts a conversation, with the `sessionId` of an earlier callback it continues ' +
      'that one (400 SESSION_ID_UNKNOWN otherwise). Same key, scope and errors.',
    operationId: 'sendHttpAsyncMessage',
    body: sendBody,
    response: { 202: sendAccepted, ...errors },
    preHandler: [refuseKeyInBody, requireSubmitKey({ verifyApiKey: options.verifyApiKey })],
    handler: async (request, reply) => {
      const body = request.body;
      const done = await submit(request, {
        route: 'send',
        subscriptionId: body.connectionId,
        text: body.message,
        ...(body.sessionId === undefined ? {} : { sessionId: body.sessionId }),
        ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
      });
      accepted(reply);
      return {
        success: true as const,
        messageId: done.messageId,
        sessionId: done.sessionId,
        status: 'accepted' as const,
      };
    },
  });
};
