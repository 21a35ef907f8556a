import { addRoute, errorResponses, HttpError, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import {
  AGENT_PROVIDERS,
  type Agent,
  type AgentStore,
  agentContextAccessSchema,
  agentGuardrailsSchema,
  agentHandoffsSchema,
  agentInputSchema,
  agentNameSchema,
  agentPatchSchema,
  agentSystemToolsSchema,
  agentToolDefinitionSchema,
} from '@parley/runtime';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { projectResourceRoutes } from './projectResources.js';

export interface AgentsRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  agents: AgentStore;
}

const agentBody = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  provider: z.enum(AGENT_PROVIDERS),
  model: z.string(),
  systemPrompt: z.string(),
  tools: z.array(agentToolDefinitionSchema),
  guardrails: agentGuardrailsSchema,
  systemTools: agentSystemToolsSchema,
  handoffs: agentHandoffsSchema,
  contextAccess: agentContextAccessSchema,
  maxIterations: z.int(),
  secretNames: z.array(z.string()).describe('The names of its secrets; their values are never returned'),
  environment: z.string().nullable(),
  deploymentId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
type AgentBody = z.infer<typeof agentBody>;

export const toAgentBody = (agent: Agent): AgentBody => ({
  ...agent,
  createdAt: agent.createdAt.toISOString(),
  updatedAt: agent.updatedAt.toISOString(),
});

const projectParams = z.object({ projectId: z.string().min(1).max(256) });
const agentParams = projectParams.extend({ name: agentNameSchema });
const one = z.object({ success: z.literal(true), data: agentBody });
const many = z.object({ success: z.literal(true), data: z.object({ agents: z.array(agentBody) }) });

const agentNotFound = (name: string) => new HttpError('AGENT_NOT_FOUND', 404, `agent not found: ${name}`);

/**
 * Agent management: `/api/v1/projects/{projectId}/agents` (docs/api.md "Agents"). Platform API
 * key (x-api-key or Bearer plat_) or user JWT; reading needs `agent:read` (scope agents.read or
 * agents.write), changing needs `agent:write` (scope agents.write).
 */
export const agentsRoutes: FastifyPluginAsync<AgentsRouteOptions> = async (app, options) => {
  const { auth, security, errors } = projectResourceRoutes(options);
  const common = { tags: ['agents'], security };

  addRoute(app, {
    ...common,
    method: 'GET',
    url: '/api/v1/projects/:projectId/agents',
    summary: "List a project's agents (oldest first)",
    operationId: 'listAgents',
    params: projectParams,
    response: { 200: many, ...errors },
    preHandler: auth('agent:read'),
    handler: async (request) => ({
      success: true,
      data: { agents: (await options.agents.list(request.params.projectId)).map(toAgentBody) },
    }),
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: '/api/v1/projects/:projectId/agents',
    summary: 'Create an agent',
    description:
      'Names are unique per project (409 AGENT_EXISTS). `provider` defaults to `scripted`. `secrets` are stored ' +
      'encrypted (503 SECRETS_NOT_CONFIGURED without CHANNEL_CREDENTIALS_KEY) and never returned. docs/agents.md.',
    operationId: 'createAgent',
    params: projectParams,
    body: agentInputSchema,
    response: { 201: one, ...errors, 409: errorResponses.standard, 503: errorResponses.standard },
    preHandler: auth('agent:write'),
    handler: async (request, reply) => {
      const agent = await options.agents.create(request.params.projectId, request.body);
      reply.status(201);
      return { success: true, data: toAgentBody(agent) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: '/api/v1/projects/:projectId/agents/:name',
    summary: 'Show one agent',
    operationId: 'getAgent',
    params: agentParams,
    response: { 200: one, ...errors },
    preHandler: auth('agent:read'),
    handler: async (request) => {
      const agent = await options.agents.get(request.params.projectId, request.params.name);
      if (agent === null) throw agentNotFound(request.params.name);
      return { success: true, data: toAgentBody(agent) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'PATCH',
    url: '/api/v1/projects/:projectId/agents/:name',
    summary: "Change an agent's fields",
    description:
      'Only the fields given change; `null` clears description, environment or deploymentId. `secrets` merges ' +
      '(`null` deletes one). The name cannot change.',
    operationId: 'updateAgent',
    params: agentParams,
    body: agentPatchSchema,
    response: { 200: one, ...errors, 503: errorResponses.standard },
    preHandler: auth('agent:write'),
    handler: async (request) => {
      const agent = await options.agents.update(request.params.projectId, request.params.name, request.body);
      return { success: true, data: toAgentBody(agent) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'DELETE',
    url: '/api/v1/projects/:projectId/agents/:name',
    summary: 'Delete an agent',
    description:
      'Sessions already talking to it keep their history; their next turn answers 404 AGENT_NOT_FOUND.',
    operationId: 'deleteAgent',
    params: agentParams,
    response: { 204: z.null().describe('Deleted'), ...errors },
    preHandler: auth('agent:write'),
    handler: async (request, reply) => {
      const deleted = await options.agents.delete(request.params.projectId, request.params.name);
      if (!deleted) throw agentNotFound(request.params.name);
      reply.status(204);
      return null;
    },
  });
};
