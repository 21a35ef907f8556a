import { randomBytes } from 'node:crypto';
import type { Environment } from '@parley/events';
import type { Pool } from '@parley/platform';
import { AgentExistsError, AgentNotFoundError, ProjectNotFoundError } from '../errors.js';
import {
  type AgentGuardrails,
  type AgentInput,
  type AgentPatch,
  type AgentProvider,
  type AgentToolDefinition,
  agentInputSchema,
  agentPatchSchema,
  DEFAULT_MODELS,
} from './schema.js';

export interface Agent {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  provider: AgentProvider;
  model: string;
  systemPrompt: string;
  tools: AgentToolDefinition[];
  guardrails: AgentGuardrails;
  environment: Environment | null;
  deploymentId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The agent a project without agents talks to: scripted (offline, deterministic), offering the
 * built-in demo tools. It is never stored; creating an agent named `default` replaces it.
 */
export const DEFAULT_AGENT: Omit<Agent, 'projectId' | 'createdAt' | 'updatedAt'> = Object.freeze({
  id: 'agt_builtin_default',
  name: 'default',
  description: 'Built-in scripted agent (the project has no agents)',
  provider: 'scripted',
  model: 'scripted-1',
  systemPrompt: 'You are a helpful assistant.',
  tools: [
    {
      name: 'weather',
      description: 'Weather forecast for a city (demo data)',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    {
      name: 'lookup_order',
      description: 'Status of an order by id (demo data)',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  ],
  guardrails: {},
  environment: null,
  deploymentId: null,
});

export interface AgentStore {
  /** AgentExistsError when the name is taken; ProjectNotFoundError when the project does not exist. */
  create(projectId: string, input: AgentInput): Promise<Agent>;
  /** Oldest first (created_at, then name). */
  list(projectId: string): Promise<Agent[]>;
  get(projectId: string, name: string): Promise<Agent | null>;
  /** AgentNotFoundError when there is no such agent. */
  update(projectId: string, name: string, patch: AgentPatch): Promise<Agent>;
  /** False when there was no such agent. */
  delete(projectId: string, name: string): Promise<boolean>;
  /**
   * The agent a turn runs: the named one (AgentNotFoundError when absent), else the project's
   * oldest agent, else DEFAULT_AGENT.
   */
  resolve(projectId: string, name?: string): Promise<Agent>;
}

interface AgentRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  provider: AgentProvider;
  model: string;
  system_prompt: string;
  tools: AgentToolDefinition[];
  guardrails: AgentGuardrails;
  environment: Environment | null;
  deployment_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toAgent = (r: AgentRow): Agent => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  description: r.description,
  provider: r.provider,
  model: r.model,
  systemPrompt: r.system_prompt,
  tools: r.tools,
  guardrails: r.guardrails,
  environment: r.environment,
  deploymentId: r.deployment_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `agt_` and 16 base62 characters, like the auth ids. */
export function newAgentId(): string {
  const bytes = randomBytes(16);
  let out = 'agt_';
  // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps every character equally likely.
  for (let i = 0; out.length < 20; i++) {
    const byte = i < bytes.length ? bytes[i]! : randomBytes(1)[0]!;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

const COLUMNS = `id, project_id, name, description, provider, model, system_prompt, tools, guardrails,
  environment, deployment_id, created_at, updated_at`;

const pgCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : undefined;

export function createAgentStore(pool: Pool): AgentStore {
  const get = async (projectId: string, name: string): Promise<Agent | null> => {
    const { rows } = await pool.query<AgentRow>(
      `select ${COLUMNS} from agents where project_id = $1 and name = $2`,
      [projectId, name],
    );
    return rows[0] === undefined ? null : toAgent(rows[0]);
  };

  return {
    async create(projectId, input) {
      const a = agentInputSchema.parse(input);
      try {
        const { rows } = await pool.query<AgentRow>(
          `insert into agents (id, project_id, name, description, provider, model, system_prompt, tools,
             guardrails, environment, deployment_id)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11)
           returning ${COLUMNS}`,
          [
            newAgentId(),
            projectId,
            a.name,
            a.description ?? null,
            a.provider,
            a.model ?? DEFAULT_MODELS[a.provider],
            a.systemPrompt,
            JSON.stringify(a.tools),
            JSON.stringify(a.guardrails),
            a.environment ?? null,
            a.deploymentId ?? null,
          ],
        );
        return toAgent(rows[0]!);
      } catch (err) {
        if (pgCode(err) === '23505') throw new AgentExistsError(a.name);
        if (pgCode(err) === '23503') throw new ProjectNotFoundError(projectId);
        throw err;
      }
    },

    async list(projectId) {
      const { rows } = await pool.query<AgentRow>(
        `select ${COLUMNS} from agents where project_id = $1 order by created_at, name`,
        [projectId],
      );
      return rows.map(toAgent);
    },

    get,

    async update(projectId, name, patch) {
      const p = agentPatchSchema.parse(patch);
      const sets: string[] = [];
      const values: unknown[] = [projectId, name];
      const set = (column: string, value: unknown, cast = '') => {
        values.push(value);
        sets.push(`${column} = $${values.length}${cast}`);
      };
      if (p.description !== undefined) set('description', p.description);
      if (p.provider !== undefined) set('provider', p.provider);
      if (p.model !== undefined) set('model', p.model);
      if (p.systemPrompt !== undefined) set('system_prompt', p.systemPrompt);
      if (p.tools !== undefined) set('tools', JSON.stringify(p.tools), '::jsonb');
      if (p.guardrails !== undefined) set('guardrails', JSON.stringify(p.guardrails), '::jsonb');
      if (p.environment !== undefined) set('environment', p.environment);
      if (p.deploymentId !== undefined) set('deployment_id', p.deploymentId);
      sets.push('updated_at = now()');
      const { rows } = await pool.query<AgentRow>(
        `update agents set ${sets.join(', ')} where project_id = $1 and name = $2 returning ${COLUMNS}`,
        values,
      );
      if (rows[0] === undefined) throw new AgentNotFoundError(name);
      return toAgent(rows[0]);
    },

    async delete(projectId, name) {
      const { rowCount } = await pool.query('delete from agents where project_id = $1 and name = $2', [
        projectId,
        name,
      ]);
      return (rowCount ?? 0) > 0;
    },

    async resolve(projectId, name) {
      if (name !== undefined) {
        const agent = await get(projectId, name);
        if (agent !== null) return agent;
        if (name === DEFAULT_AGENT.name && (await this.list(projectId)).length === 0) {
          return builtinDefault(projectId);
        }
        throw new AgentNotFoundError(name);
      }
      const { rows } = await pool.query<AgentRow>(
        `select ${COLUMNS} from agents where project_id = $1 order by created_at, name limit 1`,
        [projectId],
      );
      return rows[0] === undefined ? builtinDefault(projectId) : toAgent(rows[0]);
    },
  };
}

const EPOCH = new Date(0);
const builtinDefault = (projectId: string): Agent => ({
  ...DEFAULT_AGENT,
  tools: DEFAULT_AGENT.tools.map((t) => ({ ...t })),
  projectId,
  createdAt: EPOCH,
  updatedAt: EPOCH,
});
