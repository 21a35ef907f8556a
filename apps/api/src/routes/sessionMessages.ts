import {
  addRoute,
  errorResponses,
  HttpError,
  requireCaller,
  type VerifyApiKey,
  type VerifyJwt,
} from '@parley/http';
import type { SessionMessageReads } from '@parley/projection-session-messages';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Freshness } from './analytics.js';
import { freshnessShape, wireFreshness } from './analyticsSchemas.js';
import { DEFAULT_LIMIT, MAX_LIMIT, paging, type RawQuery, sessionIdOf } from './traces/traceQueries.js';
import { sessionParams } from './traces/traceSchemas.js';

export interface SessionMessagesRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** User JWT bearer tokens; unset: only platform API keys (a JWT is 401). */
  verifyJwt?: VerifyJwt | undefined;
  reads: SessionMessageReads;
  /** How far the session-messages read model has caught up with the log. */
  freshness(): Promise<Freshness>;
}

/** The permission of the transcript (scope `conversations.read`). */
export const CONVERSATION_READ_PERMISSION = 'conversation:read';

const json = z.record(z.string(), z.unknown());
const messageShape = z.object({
  messageId: z.string(),
  role: z.enum(['user', 'agent']),
  text: z.string().describe('The message text as recorded.'),
  at: z.iso.datetime().describe('receivedAt (user) or repliedAt (agent).'),
  inReplyTo: z.string().nullable().describe('Agent replies: the user message answered, when recorded.'),
  agentName: z.string().nullable().describe('Agent replies: the agent; null for user messages.'),
  actionSet: json.nullable().describe('Agent replies: the ACTION_SET offered (spec 001 §1), when any.'),
  actionEvent: json.nullable().describe('User messages: the interactive callback data, when any.'),
  usedFallback: z
    .boolean()
    .nullable()
    .describe('Agent replies: whether the fallback answered; null when not recorded.'),
});
const pageShape = z.object({
  success: z.literal(true),
  sessionId: z.string(),
  messages: z.array(messageShape),
  pagination: z.object({ total: z.int().min(0), limit: z.int().min(1), offset: z.int().min(0) }),
  hasMore: z.boolean(),
  freshness: freshnessShape,
});
const query = z.object({
  limit: z.string().optional().describe(`Integer 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}.`),
  offset: z.string().optional().describe('Integer >= 0, default 0.'),
});

/**
 * The session transcript (issue 10 B): GET /api/projects/{projectId}/sessions/{sessionId}/messages,
 * a platform API key or a user JWT (requireCaller) with `conversation:read`. Messages in order
 * (`at`, then log position), paged like the trace APIs, with the read model's freshness.
 */
export const sessionMessagesRoutes: FastifyPluginAsync<SessionMessagesRouteOptions> = async (app, deps) => {
  const preHandler = requireCaller({
    verifyApiKey: deps.verifyApiKey,
    verifyJwt: deps.verifyJwt,
    permission: CONVERSATION_READ_PERMISSION,
    projectParam: 'projectId',
  });

  addRoute(app, {
    method: 'GET',
    url: '/api/projects/:projectId/sessions/:sessionId/messages',
    tags: ['sessions'],
    summary: "List a session's messages (the transcript)",
    description:
      "The session's user messages and agent replies in order (at, then log position), with the read model's freshness. Needs conversation:read (scope conversations.read).",
    operationId: 'listSessionMessages',
    security: [{ bearer: [] }, { apiKey: [] }, { userJwt: [] }],
    // Parameters are checked after authentication: an unauthenticated caller learns nothing of them.
    validation: 'document',
    preHandler,
    params: sessionParams,
    querystring: query,
    response: {
      200: pageShape,
      400: errorResponses.standard,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      404: errorResponses.standard,
      429: errorResponses.rateLimited,
    },
    handler: async (request, reply) => {
      const { projectId } = request.params;
      const sessionId = sessionIdOf(request.params);
      const { limit, offset } = paging(request.query as RawQuery);
      // Read before the page: checkpoints only move forward, so the rows reflect at least this.
      const freshness = await deps.freshness();
      const page = await deps.reads.listMessages({ projectId, sessionId, limit, offset });
      if (page === null) throw new HttpError('SESSION_NOT_FOUND', 404, 'Session not found');
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        sessionId,
        messages: page.messages,
        pagination: { total: page.total, limit, offset },
        hasMore: offset + page.messages.length < page.total,
        freshness: wireFreshness(freshness),
      };
    },
  });
};
