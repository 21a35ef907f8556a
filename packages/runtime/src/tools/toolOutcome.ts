import type { ActionSet, ContainmentType, JsonValue, ReplyMedia } from '@parley/events';

/** What a tool call came to: the content goes back to the model as the tool's result. */
export type ToolOutcome =
  | { status: 'ok'; content: string; details?: Record<string, JsonValue> }
  | { status: 'error'; code: string; message?: string; details?: Record<string, JsonValue> }
  | { status: 'suspended'; suspensionId: string; expiresAt: Date; details?: Record<string, JsonValue> };

/** What a system tool asks of the turn (besides its result). */
export type SystemEffect =
  | { kind: 'handoff'; agentName: string; reason?: string }
  | { kind: 'end'; containmentType: Exclude<ContainmentType, 'escalated' | 'abandoned'>; reason: string }
  | { kind: 'escalate'; reason: string }
  | { kind: 'actions'; actionSet: ActionSet }
  | { kind: 'media'; media: ReplyMedia };

/** The text the model reads for an outcome. */
export function contentOf(outcome: ToolOutcome): string {
  switch (outcome.status) {
    case 'ok':
      return outcome.content;
    case 'error':
      return JSON.stringify({
        error: outcome.code,
        ...(outcome.message ? { message: outcome.message } : {}),
      });
    case 'suspended':
      return JSON.stringify({ status: 'pending', suspensionId: outcome.suspensionId });
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown tool outcome ${JSON.stringify(exhaustive)}`);
    }
  }
}
