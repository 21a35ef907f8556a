import type { Agent } from '../agents/store.js';
import type { ToolCall } from '../providers/types.js';
import {
  newSuspensionId,
  newSuspensionSecret,
  type SuspensionStore,
} from '../suspensions/suspensionStore.js';
import { parseArguments, runBuiltinTool } from './builtinTools.js';
import { runHttpTool, type ToolFetch } from './httpTool.js';
import { isSystemToolName, readSystemToolCall } from './systemTools.js';
import type { TemplateContext } from './templates.js';
import type { SystemEffect, ToolOutcome } from './toolOutcome.js';

export type ToolKind = 'system' | 'builtin' | 'http';

export interface ToolRun {
  call: ToolCall;
  kind: ToolKind | 'unknown';
  outcome: ToolOutcome;
  effect?: SystemEffect;
  /** An effect the engine refused after the tool answered (a handoff to an unusable agent). */
  rejectedEffect?: SystemEffect;
  durationMs: number;
}

/** What running tools needs from the runtime (its deps, bound to one turn). */
export interface ToolRunnerDeps {
  /** The guarded fetch; absent: http tools fail with `http_tools_unavailable`. */
  fetch?: ToolFetch;
  /** The agent's secrets, decrypted once per turn when a tool needs them. */
  secrets(agent: Agent): Promise<Record<string, string>>;
  /** Suspensions (absent without a credentials key: suspending tools fail with `suspension_unavailable`). */
  suspensions?: SuspensionStore;
  /** https://parley.example (the callback URL of a suspension is `<base>/api/v1/suspensions/<id>/callback`). */
  publicBaseUrl?: string;
  defaultSuspensionSeconds: number;
  now: () => Date;
}

export interface ToolTurnContext {
  sessionId: string;
  projectId: string;
  tenantId: string;
  template: Omit<TemplateContext, 'args' | 'secrets'>;
  /** Where the resumed reply goes (the channel layer's choice, opaque here). */
  origin: Record<string, unknown> | null;
  /** The suspension this round may still make (one per turn); taken by the first suspending call. */
  suspensionSlot: { taken: boolean };
  signal?: AbortSignal;
}

/** The headers an asynchronous tool's request carries, so the external system can call back. */
export const SUSPENSION_HEADERS = {
  id: 'X-Parley-Suspension-Id',
  callbackUrl: 'X-Parley-Callback-Url',
  secret: 'X-Parley-Callback-Secret',
  expiresAt: 'X-Parley-Callback-Expires-At',
} as const;

export function suspensionCallbackUrl(publicBaseUrl: string, suspensionId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/api/v1/suspensions/${encodeURIComponent(suspensionId)}/callback`;
}

/**
 * Runs one tool call the model made: a system tool (its effect), a built-in, or an http tool (a
 * suspending one creates its suspension once the external system accepted the call). A tool the
 * agent does not offer is `unknown_tool`. Never throws for a tool's failure; only the turn's abort
 * rejects.
 */
export async function runToolCall(
  deps: ToolRunnerDeps,
  agent: Agent,
  offered: ReadonlySet<string>,
  call: ToolCall,
  turn: ToolTurnContext,
): Promise<ToolRun> {
  const started = performance.now();
  const done = (kind: ToolRun['kind'], outcome: ToolOutcome, effect?: SystemEffect): ToolRun => ({
    call,
    kind,
    outcome,
    ...(effect === undefined ? {} : { effect }),
    durationMs: Math.round(performance.now() - started),
  });
  if (!offered.has(call.name)) return done('unknown', { status: 'error', code: 'unknown_tool' });
  if (isSystemToolName(call.name)) {
    const read = readSystemToolCall(call.name, call.arguments);
    return done('system', read.outcome, read.effect);
  }
  const tool = agent.tools.find((t) => t.name === call.name);
  const impl = tool?.implementation ?? { type: 'builtin' as const };
  if (tool === undefined || impl.type === 'builtin') {
    const outcome = runBuiltinTool(call.name, call.arguments);
    return done(
      'builtin',
      outcome.ok
        ? { status: 'ok', content: JSON.stringify(outcome.result) }
        : { status: 'error', code: outcome.error.split(':')[0]!, message: outcome.error },
    );
  }
  if (deps.fetch === undefined) return done('http', { status: 'error', code: 'http_tools_unavailable' });
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) return done('http', { status: 'error', code: 'invalid_arguments', message: parsed.error });
  const secrets = agent.secretNames.length === 0 ? {} : await deps.secrets(agent);
  const context: TemplateContext = { ...turn.template, args: parsed.args, secrets };
  const httpDeps = { fetch: deps.fetch };
  if (tool.suspend === undefined) {
    return done(
      'http',
      await runHttpTool(httpDeps, { toolName: call.name, impl, args: parsed.args, context, ...signal(turn) }),
    );
  }

  // An asynchronous tool: the external system gets the suspension's coordinates with the call.
  if (deps.suspensions === undefined || deps.publicBaseUrl === undefined) {
    return done('http', { status: 'error', code: 'suspension_unavailable' });
  }
  if (turn.suspensionSlot.taken) return done('http', { status: 'error', code: 'one_suspension_per_turn' });
  turn.suspensionSlot.taken = true;
  const suspensionId = newSuspensionId();
  const secret = newSuspensionSecret();
  const expiresAt = new Date(
    deps.now().getTime() + (tool.suspend.timeoutSeconds ?? deps.defaultSuspensionSeconds) * 1000,
  );
  // Stored before the call, so a callback that comes back at once finds it.
  await deps.suspensions.create({
    suspensionId,
    sessionId: turn.sessionId,
    projectId: turn.projectId,
    tenantId: turn.tenantId,
    secret,
    origin: turn.origin,
    expiresAt,
  });
  const outcome = await runHttpTool(httpDeps, {
    toolName: call.name,
    impl,
    args: parsed.args,
    context,
    extraHeaders: {
      [SUSPENSION_HEADERS.id]: suspensionId,
      [SUSPENSION_HEADERS.callbackUrl]: suspensionCallbackUrl(deps.publicBaseUrl, suspensionId),
      [SUSPENSION_HEADERS.secret]: secret,
      [SUSPENSION_HEADERS.expiresAt]: expiresAt.toISOString(),
    },
    ...signal(turn),
  });
  if (outcome.status !== 'ok') {
    // Not accepted: nothing will call back. The row stays pending until the sweep times it out
    // quietly (no ToolCallSuspended names it, so its timeout replies nothing).
    turn.suspensionSlot.taken = false;
    return done('http', outcome);
  }
  return done('http', {
    status: 'suspended',
    suspensionId,
    expiresAt,
    ...(outcome.details === undefined ? {} : { details: outcome.details }),
  });
}

const signal = (turn: ToolTurnContext): { signal?: AbortSignal } =>
  turn.signal === undefined ? {} : { signal: turn.signal };
