import type { Agent } from '../../agents/store.js';
import type { ToolCall } from '../../providers/types.js';
import type { SystemEffect } from '../../tools/toolOutcome.js';
import { contentOf } from '../../tools/toolOutcome.js';
import {
  runToolCall,
  type ToolRun,
  type ToolRunnerDeps,
  type ToolTurnContext,
} from '../../tools/toolRunner.js';
import { cut } from './traceLog.js';
import type { TurnContext } from './turnContext.js';

export interface ToolRound {
  runs: ToolRun[];
  /** System tools' effects, in call order (handoffs checked later by the loop). */
  effects: SystemEffect[];
  /** The call that suspended the turn, if one did. */
  suspended: ToolRun | null;
}

/**
 * Runs one round of tool calls concurrently (a model's parallel calls), then records each as a
 * `tool_call` span, status the outcome (`error` for a failed tool, so the tool success rate drops),
 * with its `tool_result` as a child, in the order the model made the calls.
 */
export async function runToolRound(
  ctx: TurnContext,
  deps: ToolRunnerDeps,
  agent: Agent,
  offered: ReadonlySet<string>,
  calls: readonly ToolCall[],
  turn: ToolTurnContext,
  /** Checks a run before it is recorded (the loop resolves handoff targets here). */
  check: (run: ToolRun) => Promise<ToolRun> = async (run) => run,
): Promise<ToolRound> {
  const startedAt = ctx.now();
  const runs = await Promise.all(
    calls.map(async (call) => check(await runToolCall(deps, agent, offered, call, turn))),
  );
  for (const run of runs) {
    const { call, outcome } = run;
    const failed = outcome.status === 'error';
    const spanId = ctx.trace.add({
      eventType: 'tool_call',
      name: call.name,
      status: failed ? 'error' : 'ok',
      startedAt: startedAt.toISOString(),
      durationMs: run.durationMs,
      attributes: {
        toolCallId: call.id,
        kind: run.kind,
        agent: agent.name,
        arguments: cut(call.arguments),
        ...(outcome.status === 'suspended'
          ? {
              suspended: true,
              suspensionId: outcome.suspensionId,
              expiresAt: outcome.expiresAt.toISOString(),
            }
          : {}),
        ...(outcome.details ?? {}),
      },
    });
    if (outcome.status !== 'suspended') {
      ctx.trace.add({
        eventType: 'tool_result',
        name: call.name,
        status: failed ? 'error' : 'ok',
        parentSpanId: spanId,
        startedAt: startedAt.toISOString(),
        durationMs: run.durationMs,
        attributes: {
          toolCallId: call.id,
          ...(failed
            ? { code: outcome.code, ...(outcome.message ? { message: cut(outcome.message) } : {}) }
            : { result: cut(contentOf(outcome)) }),
        },
      });
    }
  }
  return {
    runs,
    effects: runs.flatMap((r) => (r.effect === undefined ? [] : [r.effect])),
    suspended: runs.find((r) => r.outcome.status === 'suspended') ?? null,
  };
}
