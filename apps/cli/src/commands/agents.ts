import { readFileSync } from 'node:fs';
import { createAuthStore } from '@parley/auth';
import { keyringFromConfig } from '@parley/channels';
import { ParleyError } from '@parley/platform';
import {
  type Agent,
  type AgentInput,
  type AgentPatch,
  type AgentStore,
  agentInputSchema,
  agentPatchSchema,
  createAgentStore,
} from '@parley/runtime';
import { z } from 'zod';
import { openSystem, UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';
import { resolveProject } from './projects.js';
import { formatTime, printJson } from './tenants.js';

/** Flags shared by `agents create` and `agents update` (unset flags change nothing). */
export interface AgentFlags {
  /** The whole definition, as the API takes it (a JSON file). */
  file?: string;
  description?: string;
  provider?: string;
  model?: string;
  systemPrompt?: string;
  systemPromptFile?: string;
  /** JSON array of tool definitions, or @file. */
  tools?: string;
  /** JSON object, or @file. */
  guardrails?: string;
  /** JSON object NAME → value, or @file. */
  secrets?: string;
  systemTools?: string;
  handoffs?: string;
  maxIterations?: string;
  environment?: string;
  deployment?: string;
  json?: boolean;
}

/** Runs fn with the agent store and the project (by id or slug); store errors become usage errors. */
async function withAgents<T>(
  ctx: CliContext,
  project: string,
  fn: (agents: AgentStore, projectId: string) => Promise<T>,
): Promise<T> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 2 });
  try {
    const { id } = await resolveProject(createAuthStore(system.pool), project);
    // Secrets are encrypted with the credentials keyring (CHANNEL_CREDENTIALS_KEY), as the API does.
    return await fn(createAgentStore(system.pool, keyringFromConfig(ctx.config) ?? undefined), id);
  } catch (err) {
    // A refusal, or secrets given without CHANNEL_CREDENTIALS_KEY (the configuration's fault, said as is).
    if (err instanceof ParleyError && (err.status < 500 || err.code === 'SECRETS_NOT_CONFIGURED')) {
      throw new UsageError(err.message);
    }
    if (err instanceof z.ZodError) throw new UsageError(describeIssues(err));
    throw err;
  } finally {
    await system.close();
  }
}

const describeIssues = (err: z.ZodError): string =>
  err.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');

/** A JSON flag value: inline JSON, or `@path` for a file's content. */
function jsonFlag(flag: string, value: string): unknown {
  const text = value.startsWith('@') ? readFile(flag, value.slice(1)) : value;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${flag} must be JSON (or @file with JSON)`);
  }
}

function readFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The fields the flags set, parsed by the API's schema (so the CLI accepts exactly what the API does). */
function fieldsOf(flags: AgentFlags): Record<string, unknown> {
  if (flags.systemPrompt !== undefined && flags.systemPromptFile !== undefined) {
    throw new UsageError('give --system-prompt or --system-prompt-file, not both');
  }
  const fields: Record<string, unknown> = {};
  if (flags.file !== undefined) {
    const file = jsonFlag('--file', `@${flags.file}`);
    if (typeof file !== 'object' || file === null || Array.isArray(file)) {
      throw new UsageError('--file must hold a JSON object (the agent)');
    }
    Object.assign(fields, file);
  }
  if (flags.description !== undefined)
    fields.description = flags.description === '' ? null : flags.description;
  if (flags.provider !== undefined) fields.provider = flags.provider;
  if (flags.model !== undefined) fields.model = flags.model;
  if (flags.systemPrompt !== undefined) fields.systemPrompt = flags.systemPrompt;
  if (flags.systemPromptFile !== undefined) {
    fields.systemPrompt = readFile('--system-prompt-file', flags.systemPromptFile);
  }
  if (flags.tools !== undefined) fields.tools = jsonFlag('--tools', flags.tools);
  if (flags.guardrails !== undefined) fields.guardrails = jsonFlag('--guardrails', flags.guardrails);
  if (flags.secrets !== undefined) fields.secrets = jsonFlag('--secrets', flags.secrets);
  if (flags.systemTools !== undefined) fields.systemTools = jsonFlag('--system-tools', flags.systemTools);
  if (flags.handoffs !== undefined) fields.handoffs = jsonFlag('--handoffs', flags.handoffs);
  if (flags.maxIterations !== undefined) {
    const n = Number(flags.maxIterations);
    if (!Number.isInteger(n)) throw new UsageError('--max-iterations must be a whole number');
    fields.maxIterations = n;
  }
  if (flags.environment !== undefined)
    fields.environment = flags.environment === '' ? null : flags.environment;
  if (flags.deployment !== undefined) fields.deploymentId = flags.deployment === '' ? null : flags.deployment;
  return fields;
}

function parseOrUsage<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(describeIssues(result.error));
  return result.data;
}

const summary = (a: Agent): string =>
  `${a.name} (${a.id}): ${a.provider}/${a.model}, ${a.tools.length} tool${a.tools.length === 1 ? '' : 's'}`;

function printAgent(ctx: CliContext, agent: Agent, json: boolean | undefined, verb: string): void {
  if (json) printJson(ctx, agent);
  else ctx.out.write(`${verb} agent ${summary(agent)}\n`);
}

export async function agentsCreateCommand(
  ctx: CliContext,
  name: string,
  options: AgentFlags & { project: string },
): Promise<void> {
  const fields = fieldsOf(options);
  if (fields.name !== undefined && fields.name !== name) {
    throw new UsageError(`the file names the agent ${String(fields.name)}, not ${name}`);
  }
  const input = parseOrUsage(agentInputSchema, { ...fields, name }) as AgentInput;
  const agent = await withAgents(ctx, options.project, (agents, projectId) =>
    agents.create(projectId, input),
  );
  printAgent(ctx, agent, options.json, 'created');
}

export async function agentsUpdateCommand(
  ctx: CliContext,
  name: string,
  options: AgentFlags & { project: string },
): Promise<void> {
  const { name: named, ...fields } = fieldsOf(options);
  if (named !== undefined && named !== name) throw new UsageError('the name of an agent cannot change');
  if (Object.keys(fields).length === 0) throw new UsageError('nothing to change: give at least one option');
  const patch = parseOrUsage(agentPatchSchema, fields) as AgentPatch;
  const agent = await withAgents(ctx, options.project, (agents, projectId) =>
    agents.update(projectId, name, patch),
  );
  printAgent(ctx, agent, options.json, 'updated');
}

export async function agentsListCommand(
  ctx: CliContext,
  options: { project: string; json?: boolean },
): Promise<void> {
  const list = await withAgents(ctx, options.project, (agents, projectId) => agents.list(projectId));
  if (options.json) {
    printJson(ctx, list);
    return;
  }
  ctx.out.write(
    formatTable(
      list.map((a) => ({
        name: a.name,
        id: a.id,
        provider: a.provider,
        model: a.model,
        tools: a.tools.map((t) => t.name).join(',') || '-',
        environment: a.environment ?? '-',
        updated: formatTime(a.updatedAt),
      })),
    ),
  );
}

export async function agentsShowCommand(
  ctx: CliContext,
  name: string,
  options: { project: string; json?: boolean },
): Promise<void> {
  const agent = await withAgents(ctx, options.project, (agents, projectId) => agents.get(projectId, name));
  if (agent === null) throw new UsageError(`no agent ${JSON.stringify(name)} in project ${options.project}`);
  if (options.json) {
    printJson(ctx, agent);
    return;
  }
  const lines = [
    `name:         ${agent.name}`,
    `id:           ${agent.id}`,
    `description:  ${agent.description ?? '-'}`,
    `provider:     ${agent.provider}`,
    `model:        ${agent.model}`,
    `environment:  ${agent.environment ?? '-'}`,
    `deployment:   ${agent.deploymentId ?? '-'}`,
    `tools:        ${agent.tools.map((t) => t.name).join(', ') || '-'}`,
    `guardrails:   ${JSON.stringify(agent.guardrails)}`,
    `created:      ${formatTime(agent.createdAt)}`,
    `updated:      ${formatTime(agent.updatedAt)}`,
    'system prompt:',
    ...(agent.systemPrompt === '' ? ['  -'] : agent.systemPrompt.split('\n').map((l) => `  ${l}`)),
  ];
  ctx.out.write(`${lines.join('\n')}\n`);
}

export async function agentsDeleteCommand(
  ctx: CliContext,
  name: string,
  options: { project: string },
): Promise<void> {
  const deleted = await withAgents(ctx, options.project, (agents, projectId) =>
    agents.delete(projectId, name),
  );
  if (!deleted) throw new UsageError(`no agent ${JSON.stringify(name)} in project ${options.project}`);
  ctx.out.write(`deleted agent ${name}\n`);
}
