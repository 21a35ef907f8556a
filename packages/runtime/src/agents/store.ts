import type { Environment } from '@parley/events';
import type { Pool } from '@parley/platform';
import { AgentExistsError, AgentNotFoundError, ProjectNotFoundError } from '../errors.js';
import { type AgentRow, builtinDefault, COLUMNS, DEFAULT_AGENT, newAgentId, toAgent } from './agentRow.js';
import {
  type AgentContextAccess,
  type AgentGuardrails,
  type AgentHandoffs,
  type AgentInput,
  type AgentPatch,
  type AgentProvider,
  type AgentSystemTools,
  type AgentToolDefinition,
  agentInputSchema,
  agentPatchSchema,
  DEFAULT_MODELS,
  missingSecrets,
} from './schema.js';
import { type SecretsCipher, SecretsMissingError, SecretsNotConfiguredError } from './secretsCipher.js';

export { DEFAULT_AGENT, newAgentId } from './agentRow.js';

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
  /** Every system tool's switch (defaults filled). */
  systemTools: AgentSystemTools;
  handoffs: AgentHandoffs;
  contextAccess: AgentContextAccess;
  /** Model calls per turn; DEFAULT_MAX_ITERATIONS when not set. */
  maxIterations: number;
  /** Names of the agent's secrets (their values are never read back, only used by its tools). */
  secretNames: string[];
  environment: Environment | null;
  deploymentId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a turn needs of its project row: its tenant and its settings. */
export interface TurnProject {
  tenantId: string;
  settings: { payloads?: { store?: boolean } } | null;
}

export interface AgentStore {
  /**
   * `list` and the project's tenant and settings (null: no such project) in one query, for a turn
   * that needs both. Optional: without it a turn reads the project and `list` apart.
   */
  listWithProject?(projectId: string): Promise<{ project: TurnProject | null; agents: Agent[] }>;
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
  /** The agent's secrets, decrypted (for its tools only; never logged or returned by an API). */
  secrets(agent: Pick<Agent, 'id' | 'projectId' | 'name'>): Promise<Record<string, string>>;
}

/** The agent columns of `a` in a join with `projects p` (both have id, name, created_at...). */
const QUALIFIED_COLUMNS = COLUMNS.split(',')
  .map((column) => `a.${column.trim()}`)
  .join(', ');

const pgCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : undefined;

/**
 * Agents in PostgreSQL (table `agents`). `cipher` (the credentials keyring) encrypts secrets; without
 * it an agent can be stored only without secrets (SecretsNotConfiguredError otherwise).
 */
export function createAgentStore(pool: Pool, cipher?: SecretsCipher): AgentStore {
  const get = async (projectId: string, name: string): Promise<Agent | null> => {
    const { rows } = await pool.query<AgentRow>(
      `select ${COLUMNS} from agents where project_id = $1 and name = $2`,
      [projectId, name],
    );
    return rows[0] === undefined ? null : toAgent(rows[0]);
  };

  const seal = (agentId: string, secrets: Record<string, string>) => {
    const names = Object.keys(secrets).sort();
    if (names.length === 0) return { names, keyId: null, ciphertext: null };
    if (cipher === undefined) throw new SecretsNotConfiguredError();
    const { keyId, ciphertext } = cipher.encrypt(JSON.stringify(secrets), agentId);
    return { names, keyId, ciphertext };
  };

  const open = async (agent: Pick<Agent, 'id' | 'projectId' | 'name'>): Promise<Record<string, string>> => {
    const { rows } = await pool.query<{ secrets_key_id: string | null; secrets_ciphertext: Buffer | null }>(
      'select secrets_key_id, secrets_ciphertext from agents where id = $1 and project_id = $2',
      [agent.id, agent.projectId],
    );
    const row = rows[0];
    if (row === undefined || row.secrets_key_id === null || row.secrets_ciphertext === null) return {};
    if (cipher === undefined) throw new SecretsNotConfiguredError();
    return JSON.parse(cipher.decrypt(row.secrets_key_id, row.secrets_ciphertext, agent.id)) as Record<
      string,
      string
    >;
  };

  return {
    async create(projectId, input) {
      const a = agentInputSchema.parse(input);
      const id = newAgentId();
      const sealed = seal(id, a.secrets ?? {});
      try {
        const { rows } = await pool.query<AgentRow>(
          `insert into agents (id, project_id, name, description, provider, model, system_prompt, tools,
             guardrails, system_tools, handoffs, context_access, max_iterations, secret_names,
             secrets_key_id, secrets_ciphertext, environment, deployment_id)
           values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::jsonb, $12::jsonb,
             $13, $14, $15, $16, $17, $18)
           returning ${COLUMNS}`,
          [
            id,
            projectId,
            a.name,
            a.description ?? null,
            a.provider,
            a.model ?? DEFAULT_MODELS[a.provider],
            a.systemPrompt,
            JSON.stringify(a.tools),
            JSON.stringify(a.guardrails),
            JSON.stringify(a.systemTools ?? {}),
            JSON.stringify(a.handoffs ?? {}),
            JSON.stringify(a.contextAccess ?? {}),
            a.maxIterations ?? null,
            sealed.names,
            sealed.keyId,
            sealed.ciphertext,
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

    async listWithProject(projectId) {
      const { rows } = await pool.query<
        AgentRow & { p_tenant_id: string; p_settings: TurnProject['settings'] }
      >(
        `select p.tenant_id as p_tenant_id, p.settings as p_settings, ${QUALIFIED_COLUMNS}
         from projects p left join agents a on a.project_id = p.id
         where p.id = $1 order by a.created_at, a.name`,
        [projectId],
      );
      const first = rows[0];
      if (first === undefined) return { project: null, agents: [] };
      return {
        project: { tenantId: first.p_tenant_id, settings: first.p_settings },
        // A project without agents is one row whose agent columns are null.
        agents: rows.filter((r) => r.id !== null).map(toAgent),
      };
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
      const current = await get(projectId, name);
      if (current === null) throw new AgentNotFoundError(name);
      const sets: string[] = [];
      const values: unknown[] = [projectId, name];
      const set = (column: string, value: unknown, cast = '') => {
        values.push(value);
        sets.push(`${column} = $${values.length}${cast}`);
      };
      const json = (column: string, value: unknown) => set(column, JSON.stringify(value), '::jsonb');
      if (p.description !== undefined) set('description', p.description);
      if (p.provider !== undefined) set('provider', p.provider);
      if (p.model !== undefined) set('model', p.model);
      if (p.systemPrompt !== undefined) set('system_prompt', p.systemPrompt);
      if (p.tools !== undefined) json('tools', p.tools);
      if (p.guardrails !== undefined) json('guardrails', p.guardrails);
      if (p.systemTools !== undefined) json('system_tools', p.systemTools);
      if (p.handoffs !== undefined) json('handoffs', p.handoffs);
      if (p.contextAccess !== undefined) json('context_access', p.contextAccess);
      if (p.maxIterations !== undefined) set('max_iterations', p.maxIterations);
      if (p.environment !== undefined) set('environment', p.environment);
      if (p.deploymentId !== undefined) set('deployment_id', p.deploymentId);
      let secretNames = new Set(current.secretNames);
      if (p.secrets !== undefined) {
        const merged = current.secretNames.length === 0 ? {} : await open(current);
        for (const [key, value] of Object.entries(p.secrets)) {
          if (value === null) delete merged[key];
          else merged[key] = value;
        }
        const sealed = seal(current.id, merged);
        set('secret_names', sealed.names);
        set('secrets_key_id', sealed.keyId);
        set('secrets_ciphertext', sealed.ciphertext);
        secretNames = new Set(sealed.names);
      }
      const missing = missingSecrets(
        { tools: p.tools ?? current.tools, handoffs: p.handoffs ?? current.handoffs },
        secretNames,
      );
      if (missing.length > 0) throw new SecretsMissingError(missing);
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

    secrets: open,
  };
}
