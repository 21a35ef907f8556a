import {
  addRoute,
  errorResponses,
  permissionRequired,
  requireCaller,
  type VerifyApiKey,
  type VerifyJwt,
} from '@parley/http';
import { type Agent, type AgentStore, DEFAULT_AGENT, SYSTEM_TOOL_NAMES } from '@parley/runtime';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';

export interface AgentDiscoveryRouteOptions {
  verifyApiKey: VerifyApiKey;
  verifyJwt?: VerifyJwt | undefined;
  agents: Pick<AgentStore, 'list'>;
}

/** Either lets a caller discover agents: it may read them, or it may talk to them. */
const DISCOVERY_PERMISSIONS = ['agent:read', 'chat:write'];

const endpoint = z.object({ method: z.literal('POST'), url: z.string() });
const discoveredAgent = z.object({
  name: z.string(),
  projectId: z.string(),
  description: z.string().nullable(),
  /** The built-in scripted agent a project without agents talks to. */
  builtin: z.boolean(),
  provider: z.string(),
  model: z.string(),
  tools: z.array(z.string()).describe("The agent's own tools"),
  systemTools: z
    .array(z.string())
    .describe('The system tools it may call (handoff only when it has targets)'),
  handoffs: z.object({ local: z.array(z.string()), remote: z.array(z.string()) }),
  /** How to talk to it: the conversation endpoints and the body fields that name it. */
  talk: z.object({
    send: endpoint,
    stream: endpoint.extend({ accept: z.literal('text/event-stream') }),
    body: z.object({ projectId: z.string(), agentName: z.string() }),
  }),
});
const page = z.object({
  success: z.literal(true),
  agents: z.array(discoveredAgent),
  pagination: z.object({ total: z.int(), limit: z.int(), offset: z.int() }),
});
const query = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

function describe(agent: Agent, builtin: boolean, localTargets: string[]): z.infer<typeof discoveredAgent> {
  const switches: Record<(typeof SYSTEM_TOOL_NAMES)[number], boolean> = {
    handoff: agent.systemTools.handoff && localTargets.length + agent.handoffs.remote.length > 0,
    escalate: agent.systemTools.escalate,
    end_conversation: agent.systemTools.endConversation,
    present_actions: agent.systemTools.presentActions,
    attach_media: agent.systemTools.attachMedia,
  };
  return {
    name: agent.name,
    projectId: agent.projectId,
    description: agent.description,
    builtin,
    provider: agent.provider,
    model: agent.model,
    tools: agent.tools.map((t) => t.name),
    systemTools: SYSTEM_TOOL_NAMES.filter((name) => switches[name]),
    handoffs: {
      local: agent.systemTools.handoff ? localTargets : [],
      remote: agent.systemTools.handoff ? agent.handoffs.remote.map((r) => r.name) : [],
    },
    talk: {
      send: { method: 'POST', url: '/api/v1/chat/agent' },
      stream: { method: 'POST', url: '/api/v1/chat/stream', accept: 'text/event-stream' },
      body: { projectId: agent.projectId, agentName: agent.name },
    },
  };
}

/**
 * Agent discovery (spec 000 §9: discovery lives under /api/agents/): every agent the credential
 * reaches (a key's project, a user JWT's projects), with what a client needs to talk to it. A
 * project without agents shows its built-in scripted agent. Needs `agent:read` or `chat:write`.
 */
export const agentDiscoveryRoutes: FastifyPluginAsync<AgentDiscoveryRouteOptions> = async (app, options) => {
  const preHandler = requireCaller({
    verifyApiKey: options.verifyApiKey,
    verifyJwt: options.verifyJwt,
    permission: null,
  });
  for (const url of ['/api/agents', '/api/agents/']) {
    addRoute(app, {
      method: 'GET',
      url,
      summary: 'Discover the agents this credential can talk to',
      description:
        'Platform API key (its project) or user JWT (its projects), with `agent:read` or `chat:write`. Paged: ' +
        '`limit` 1-200 (default 50), `offset`. Ordered by project, then oldest agent first.',
      tags: ['agents'],
      operationId: url.endsWith('/') ? 'discoverAgentsSlash' : 'discoverAgents',
      security: [{ apiKey: [] }, { bearer: [] }, { userJwt: [] }],
      querystring: query,
      response: {
        200: page,
        400: errorResponses.standard,
        401: errorResponses.authentication,
        403: errorResponses.standard,
        429: errorResponses.rateLimited,
      },
      preHandler,
      handler: async (request) => {
        const caller = request.caller!;
        if (!DISCOVERY_PERMISSIONS.some((p) => caller.permissions.includes(p)))
          throw permissionRequired('chat:write');
        const all: z.infer<typeof discoveredAgent>[] = [];
        for (const projectId of [...caller.projectIds].sort()) {
          const agents = await options.agents.list(projectId);
          if (agents.length === 0) {
            const builtin: Agent = {
              ...DEFAULT_AGENT,
              projectId,
              createdAt: new Date(0),
              updatedAt: new Date(0),
            };
            all.push(describe(builtin, true, []));
            continue;
          }
          const names = agents.map((a) => a.name);
          for (const agent of agents) {
            all.push(describe(agent, false, agent.handoffs.targets ?? names.filter((n) => n !== agent.name)));
          }
        }
        const { limit, offset } = request.query;
        return {
          success: true as const,
          agents: all.slice(offset, offset + limit),
          pagination: { total: all.length, limit, offset },
        };
      },
    });
  }
};
