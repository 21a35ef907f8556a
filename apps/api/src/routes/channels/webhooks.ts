import {
  type ChannelTurnRunner,
  type InboundPipeline,
  InboundQueueUnavailableError,
  type InboundRequest,
  type WebhookOutcome,
  type WebhookRefusal,
  type WebhookRoute,
} from '@parley/channels';
import { addRoute, assertNever, errorResponses, HttpError, mediaResponse, textBody } from '@parley/http';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';

export interface ChannelWebhookRouteOptions {
  /** The inbound pipeline (@parley/channels createInboundPipeline). */
  pipeline: InboundPipeline;
  /**
   * PUBLIC_BASE_URL: the scheme, host and any path prefix the platforms call (what URL-signing
   * schemes sign). Unset: the request's own protocol and Host header.
   */
  publicBaseUrl?: string;
  /**
   * runtime.runTurn for synchronous channels (contact centre, VoiceXML), whose turn runs in the
   * request; buildApp passes the chat routes' runtime. Absent: the pipeline's own, if any.
   */
  runTurn?: ChannelTurnRunner;
}

/** A request body as the content type parsers here leave it: the raw bytes and their parsed form. */
interface RawBody {
  readonly raw: Buffer;
  /** JSON: the value (null when malformed); form: name to value; anything else: the text. */
  readonly parsed: unknown;
}
const RAW = Symbol('rawBody');
const isRawBody = (value: unknown): value is { [RAW]: RawBody } =>
  typeof value === 'object' && value !== null && RAW in value;

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}

/** Form bodies as an object of the last value per name (Slack's `payload=<json>` stays a string). */
const parseForm = (raw: Buffer): Record<string, string> =>
  Object.fromEntries(new URLSearchParams(raw.toString('utf8')));

function refusal(reason: WebhookRefusal): HttpError {
  switch (reason) {
    case 'unknown_channel_type':
      return new HttpError('NOT_FOUND', 404, 'Unknown channel type');
    case 'challenge_not_answered':
      return new HttpError('NOT_FOUND', 404, 'No verification challenge to answer');
    case 'connection_not_found':
      return new HttpError('NOT_FOUND', 404, 'No channel connection for this identifier');
    case 'identifier_missing':
      return new HttpError('VALIDATION_ERROR', 400, 'The request names no channel connection identifier');
    case 'signature_invalid':
      return new HttpError('UNAUTHORIZED', 401, 'Request signature did not verify');
    case 'content_type_unsupported':
      return new HttpError('UNSUPPORTED_MEDIA_TYPE', 415, 'The platform does not post this content type');
    case 'body_malformed':
      return new HttpError('BAD_REQUEST', 400, 'The body is not one the platform sends (empty or malformed)');
    default:
      return assertNever(reason);
  }
}

const acceptedReply = z.object({
  success: z.literal(true),
  data: z.object({
    accepted: z.int().describe('New messages queued for the agent'),
    duplicates: z.int().describe('Messages already received (same external message id): not queued again'),
    ignored: z.enum(['connection_inactive']).optional().describe('Why nothing was queued'),
    receipts: z
      .int()
      .optional()
      .describe(
        'Delivery receipts (status callbacks) recorded on the replies they report on; on providers that send them (sms/vonage)',
      ),
  }),
});

const channelTypeParam = z.string().min(1).max(64).describe('Channel type (the manifest key), e.g. whatsapp');

interface Shape {
  url: string;
  summary: string;
  params: z.ZodObject;
  route(params: Record<string, string>): WebhookRoute;
  get: boolean;
  /** Synchronous channels' route: their platform's own error bodies besides the standard envelope. */
  sync?: boolean;
}

/**
 * A synchronous channel answers an unreadable request (400) or a busy conversation (503) in its
 * platform's format (the contact centre's `botState: Failed` JSON); the route's own refusals use
 * the standard envelope.
 */
const standardOrPlatformError = {
  description: 'Error: the standard envelope, or the synchronous platform’s own error body',
  anyOf: [
    { $ref: 'StandardError#' },
    {
      type: 'object',
      required: ['botState', 'errorInfo'],
      properties: { botState: { const: 'Failed' }, errorInfo: { type: 'object' } },
    },
  ],
};

const SHAPES: readonly Shape[] = [
  {
    url: '/api/v1/channels/:channelType/webhook',
    summary: 'Inbound webhook; the connection is identified from the body',
    params: z.object({ channelType: channelTypeParam }),
    route: () => ({ kind: 'generic' }),
    get: true,
  },
  {
    url: '/api/v1/channels/:channelType/webhook/:connectionIdentifier',
    summary: 'Inbound webhook of one connection (explicit identifier)',
    params: z.object({ channelType: channelTypeParam, connectionIdentifier: z.string().min(1) }),
    route: (p) => ({ kind: 'identifier', identifier: p.connectionIdentifier ?? '' }),
    get: true,
  },
  {
    url: '/api/v1/channels/:channelType/:provider/webhook',
    summary: 'Inbound webhook of a provider variant of a channel type',
    params: z.object({ channelType: channelTypeParam, provider: z.string().min(1).max(64) }),
    route: (p) => ({ kind: 'provider', provider: p.provider ?? '' }),
    get: true,
  },
  {
    url: '/api/v1/channels/:channelType/hooks/:streamId',
    summary: 'Inbound webhook of a synchronous channel (IVR, contact centre), by stream id',
    params: z.object({ channelType: channelTypeParam, streamId: z.string().min(1) }),
    route: (p) => ({ kind: 'hooks', streamId: p.streamId ?? '' }),
    get: false,
    sync: true,
  },
  {
    url: '/api/v1/channels/:channelType/slash/:identifier',
    summary: 'Slash command of a chat platform',
    params: z.object({ channelType: channelTypeParam, identifier: z.string().min(1) }),
    route: (p) => ({ kind: 'slash', identifier: p.identifier ?? '' }),
    get: false,
  },
];

function inboundRequestOf(request: FastifyRequest, publicBaseUrl: string | undefined): InboundRequest {
  const body = isRawBody(request.body) ? request.body[RAW] : { raw: Buffer.alloc(0), parsed: undefined };
  const base = publicBaseUrl ? publicBaseUrl.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') query[name] = value;
    else if (Array.isArray(value) && typeof value[0] === 'string') query[name] = value[0];
  }
  return {
    headers: request.headers,
    body: body.parsed,
    rawBody: body.raw,
    url: `${base}${request.url}`,
    query,
  };
}

function registerParsers(app: FastifyInstance): void {
  // Signatures are over the exact bytes: every body is read raw, then parsed here (never re-serialised).
  const wrap = (raw: Buffer, parsed: unknown) => ({ [RAW]: { raw, parsed } });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    done(null, wrap(body as Buffer, parseJson(body as Buffer)));
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => {
    done(null, wrap(body as Buffer, parseForm(body as Buffer)));
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
    done(null, wrap(body as Buffer, (body as Buffer).toString('utf8')));
  });
}

/**
 * The inbound webhooks of spec 001 §4.1 (docs/api.md "Channel webhooks"): the five POST shapes and
 * the GET verification challenge. Called by the platforms, authenticated by each adapter's
 * signature or token scheme against the connection's secrets; no platform credentials.
 */
export const channelWebhookRoutes: FastifyPluginAsync<ChannelWebhookRouteOptions> = async (app, options) => {
  registerParsers(app);

  const answer = async (
    method: 'GET' | 'POST',
    request: FastifyRequest,
    shape: Shape,
  ): Promise<WebhookOutcome & { kind: 'challenge' | 'accepted' | 'sync' }> => {
    const params = request.params as Record<string, string>;
    const outcome = await options.pipeline
      .handle(
        {
          method,
          channelType: params.channelType ?? '',
          route: shape.route(params),
          request: inboundRequestOf(request, options.publicBaseUrl),
        },
        options.runTurn === undefined ? undefined : { runTurn: options.runTurn },
      )
      .catch((err: unknown) => {
        // The platform retries a 503: nothing was queued.
        if (err instanceof InboundQueueUnavailableError) {
          throw new HttpError('SERVICE_UNAVAILABLE', 503, 'Inbound processing is not available; retry later');
        }
        throw err;
      });
    if (outcome.kind === 'refused') throw refusal(outcome.reason);
    return outcome;
  };

  for (const shape of SHAPES) {
    addRoute(app, {
      method: 'POST',
      url: shape.url,
      summary: shape.summary,
      description:
        'Called by the channel platform. Verified with the connection’s secrets (the adapter’s scheme); each ' +
        'message is queued once per external message id (a repeated delivery is a duplicate) and answered by ' +
        'the worker. A handshake (e.g. Slack url_verification) is answered with its challenge. A synchronous ' +
        'channel (delivery `sync_response`: `contact_center`, `vxml`) is answered in its platform’s own format ' +
        '(JSON bot-connector response, VoiceXML document) with the agent’s reply, its turn run in the request. ' +
        'A verified body the platform never sends is refused and nothing is recorded: 415 for another content ' +
        'type (XML, text/plain to a JSON platform), 400 for an empty or malformed one. Text PostgreSQL cannot ' +
        'store (U+0000, unpaired surrogates) in a message is kept with U+FFFD in its place and recorded in the ' +
        'message’s metadata (`unstorableTextReplaced`), so the platform does not retry it forever.',
      tags: ['channels'],
      validation: 'document',
      // Platforms retry refused messages: their text is kept, U+FFFD in place of what cannot be stored.
      unstorableBody: 'handler',
      params: shape.params,
      response: {
        200: mediaResponse(
          'Verified; the messages are queued (JSON). A handshake: its challenge (text/plain). Synchronous ' +
            'channels: the platform-format response instead (contact centre JSON, a VoiceXML document)',
          {
            'application/json': z.union([
              acceptedReply,
              z.record(z.string(), z.unknown()).describe('A contact-centre bot-connector response'),
            ]),
            'text/plain': textBody,
            'application/voicexml+xml': textBody,
          },
        ),
        400: shape.sync ? standardOrPlatformError : errorResponses.standard,
        401: errorResponses.standard,
        404: errorResponses.standard,
        413: errorResponses.standard,
        415: errorResponses.standard,
        503: shape.sync ? standardOrPlatformError : errorResponses.standard,
      },
      handler: async (request, reply) => {
        const outcome = await answer('POST', request, shape);
        if (outcome.kind === 'challenge')
          return reply.code(outcome.status).type('text/plain').send(outcome.body);
        // The adapter's rendering, byte for byte (also for a repeated request: the stored response).
        if (outcome.kind === 'sync')
          return reply
            .code(outcome.response.status)
            .type(outcome.response.contentType)
            .send(outcome.response.body);
        return {
          success: true,
          data: {
            accepted: outcome.accepted,
            duplicates: outcome.duplicates,
            ...(outcome.ignored === undefined ? {} : { ignored: outcome.ignored }),
            ...(outcome.receipts === undefined ? {} : { receipts: outcome.receipts }),
          },
        };
      },
    });
    if (!shape.get) continue;
    addRoute(app, {
      method: 'GET',
      url: shape.url,
      summary: `${shape.summary}: verification challenge`,
      description:
        '`hub.verify_token` is matched against the stored verify tokens (SHA-256 lookup); on a match the ' +
        '`hub.challenge` value is answered as text/plain.',
      tags: ['channels'],
      validation: 'document',
      params: shape.params,
      response: {
        200: mediaResponse('The challenge', { 'text/plain': textBody }),
        403: errorResponses.standard,
        404: errorResponses.standard,
      },
      handler: async (request, reply) => {
        const outcome = await answer('GET', request, shape);
        if (outcome.kind !== 'challenge') throw refusal('challenge_not_answered');
        return reply.code(outcome.status).type('text/plain').send(outcome.body);
      },
    });
  }
};
