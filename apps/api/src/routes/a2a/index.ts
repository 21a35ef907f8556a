import {
  A2A_CHANNEL_TYPE,
  A2A_ERRORS,
  type A2aRpcDeps,
  answerA2aRpc,
  type InboundConnectionLookup,
  type ResolvedConnection,
  rpcError,
  rpcFailure,
} from '@parley/channels';
import {
  addRoute,
  authenticateApiKey,
  errorResponses,
  HttpError,
  permissionRequired,
  type VerifyApiKey,
} from '@parley/http';
import { isStorableText } from '@parley/platform';
import { messageMetadataSchema } from '@parley/runtime';
import type { FastifyPluginAsync, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { agentCard, type CardAgent } from './agentCard.js';

/** Calling an A2A endpoint is talking to the project's agent: the conversation permission (scope chat.write). */
export const A2A_PERMISSION = 'chat:write';

export interface A2aRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** The connection store; null when CHANNEL_CREDENTIALS_KEY is not configured (503 CHANNELS_NOT_CONFIGURED). */
  connections: Pick<InboundConnectionLookup, 'resolve'> | null;
  /** The task store and the inbound pipeline's deliver (@parley/channels createA2aTaskStore, createInboundPipeline). */
  rpc: Pick<A2aRpcDeps, 'tasks' | 'deliver' | 'blockingTimeoutMs' | 'newContextId' | 'now'>;
  /** The agent a connection talks to (@parley/runtime's AgentStore.resolve), for the agent card. */
  agents: { resolve(projectId: string, name?: string): Promise<CardAgent> };
  /** PUBLIC_BASE_URL: the scheme, host and path prefix clients call; unset: the request's own. */
  publicBaseUrl?: string;
}

const identifierParams = z.object({
  identifier: z.string().min(1).max(256).describe('The connection’s externalIdentifier'),
});

const endpointNotFound = () =>
  new HttpError('A2A_ENDPOINT_NOT_FOUND', 404, 'No A2A endpoint with this identifier');

/** A body that was not JSON: answered -32700 (JSON-RPC's parse error) rather than an HTTP 400. */
const MALFORMED = Symbol('malformed');

const rpcReply = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional().describe('A2A Task (message/send, tasks/get, tasks/cancel)'),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .describe('JSON-RPC 2.0 response: `result` or `error` (always HTTP 200)');

const rpcBody = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]),
  method: z.enum(['message/send', 'tasks/get', 'tasks/cancel']),
  params: z.record(z.string(), z.unknown()),
});

/**
 * The A2A protocol channel (spec 001 §2.2, §6; docs/api.md "A2A"): per `a2a` connection, a
 * JSON-RPC 2.0 endpoint (message/send, tasks/get, tasks/cancel) and its public agent card.
 * Callers authenticate with a platform API key of the connection's project holding `chat:write`;
 * credential and permission failures are HTTP errors in the platform envelopes (the JSON-RPC layer
 * is reached only by an authorized caller), everything after is a JSON-RPC answer with HTTP 200.
 */
export const a2aRoutes: FastifyPluginAsync<A2aRouteOptions> = async (app, options) => {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    json(request, body as string, (err, value) => done(null, err ? MALFORMED : value));
  });

  const connectionOf = new WeakMap<FastifyRequest, ResolvedConnection>();
  const lookup = () => {
    if (options.connections === null) {
      throw new HttpError(
        'CHANNELS_NOT_CONFIGURED',
        503,
        'Channel connections need CHANNEL_CREDENTIALS_KEY (docs/channels.md)',
      );
    }
    return options.connections;
  };
  const identifierOf = (request: FastifyRequest): string =>
    String((request.params as Record<string, unknown>).identifier ?? '');

  // As requireApiKey, the endpoint's project is checked before the permission: a key of another
  // project learns only "not found".
  const authorize: preHandlerAsyncHookHandler = async (request) => {
    const principal = await authenticateApiKey(request, { verify: options.verifyApiKey, allowBearer: true });
    request.principal = principal;
    // No endpoint has an identifier PostgreSQL cannot store: not looked up.
    const identifier = identifierOf(request);
    if (!isStorableText(identifier)) throw endpointNotFound();
    const connection = await lookup().resolve(A2A_CHANNEL_TYPE, identifier);
    if (connection === null || connection.projectId !== principal.projectId) throw endpointNotFound();
    if (!principal.permissions.includes(A2A_PERMISSION)) throw permissionRequired(A2A_PERMISSION);
    connectionOf.set(request, connection);
  };

  const deps: A2aRpcDeps = {
    ...options.rpc,
    validateMessageMetadata: (value) => messageMetadataSchema.safeParse(value),
    logger: app.log.child({ component: 'a2a' }),
  };

  addRoute(app, {
    method: 'POST',
    url: '/api/v1/a2a/:identifier',
    summary: 'A2A JSON-RPC endpoint of an a2a connection (message/send, tasks/get, tasks/cancel)',
    description:
      'JSON-RPC 2.0 (A2A 0.3). message/send queues the message for the agent and returns its Task (`submitted`; ' +
      '`configuration.blocking: true` waits for the answer, bounded); tasks/get returns the task with the reply; ' +
      'tasks/cancel cancels a task that has not started. Every JSON-RPC answer, errors included, is HTTP 200.',
    tags: ['a2a'],
    operationId: 'a2aJsonRpc',
    security: [{ apiKey: [] }, { bearer: [] }],
    validation: 'document',
    // JSON-RPC answers unstorable text in the body itself (-32602), with HTTP 200.
    unstorableBody: 'handler',
    params: identifierParams,
    body: rpcBody,
    response: {
      200: rpcReply,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      404: errorResponses.standard,
      413: errorResponses.standard,
      429: errorResponses.rateLimited,
      503: errorResponses.standard,
    },
    preHandler: authorize,
    handler: async (request, reply) => {
      const connection = connectionOf.get(request);
      if (connection === undefined) throw endpointNotFound();
      reply.header('cache-control', 'no-store');
      const body: unknown = request.body;
      if (body === MALFORMED || body === undefined) {
        return rpcFailure(null, rpcError(A2A_ERRORS.parseError, 'Invalid JSON payload'));
      }
      return answerA2aRpc(deps, connection, body);
    },
  });

  addRoute(app, {
    method: 'GET',
    url: '/api/v1/a2a/:identifier/.well-known/agent-card.json',
    summary: 'A2A agent card of an a2a connection',
    description:
      'Public (A2A discovery: a client reads how to authenticate here). 404 for an unknown or inactive connection.',
    tags: ['a2a'],
    operationId: 'a2aAgentCard',
    params: identifierParams,
    response: {
      200: z.record(z.string(), z.unknown()).describe('A2A AgentCard'),
      404: errorResponses.standard,
    },
    handler: async (request) => {
      const identifier = identifierOf(request);
      const connection = await lookup().resolve(A2A_CHANNEL_TYPE, identifier);
      if (connection === null || !connection.active) throw endpointNotFound();
      // An agent that cannot be resolved (renamed, deleted) still has an endpoint: the card names the binding.
      const agent = await options.agents
        .resolve(connection.projectId, connection.agentName ?? undefined)
        .catch((): CardAgent => ({ name: connection.agentName ?? 'default', description: null, tools: [] }));
      const base = options.publicBaseUrl
        ? options.publicBaseUrl.replace(/\/+$/, '')
        : `${request.protocol}://${request.host}`;
      return agentCard(connection, agent, `${base}/api/v1/a2a/${encodeURIComponent(identifier)}`);
    },
  });
};
