import { actionSetSchema, replyMediaSchema } from '@parley/events';
import type { AgentSystemTools } from '../agents/schema.js';
import type { ToolDefinition } from '../providers/types.js';
import { parseArguments } from './builtinTools.js';
import type { SystemEffect, ToolOutcome } from './toolOutcome.js';

/**
 * The tools Parley itself offers every agent (each switchable per agent, docs/agents.md "System
 * tools"). The model hands off, escalates, ends the conversation, presents actions and attaches
 * media by calling them, whichever provider serves it (the scripted provider's keywords are these
 * same calls).
 */
export const SYSTEM_TOOL_NAMES = [
  'handoff',
  'escalate',
  'end_conversation',
  'present_actions',
  'attach_media',
] as const;
export type SystemToolName = (typeof SYSTEM_TOOL_NAMES)[number];

export const isSystemToolName = (name: string): name is SystemToolName =>
  (SYSTEM_TOOL_NAMES as readonly string[]).includes(name);

const SWITCHES: Record<SystemToolName, keyof AgentSystemTools> = {
  handoff: 'handoff',
  escalate: 'escalate',
  end_conversation: 'endConversation',
  present_actions: 'presentActions',
  attach_media: 'attachMedia',
};

export const END_OUTCOMES = ['contained_resolved', 'contained_partial', 'contained_unresolved'] as const;

const reason = { type: 'string', description: 'Why, in a few words (recorded in the trace).' };

function definition(name: SystemToolName, handoffTargets: readonly string[]): ToolDefinition {
  switch (name) {
    case 'handoff':
      return {
        name,
        description:
          'Hand the conversation to another agent better suited to it. That agent answers from now on (this turn included).',
        parameters: {
          type: 'object',
          properties: { agent: { type: 'string', enum: [...handoffTargets] }, reason },
          required: ['agent'],
        },
      };
    case 'escalate':
      return {
        name,
        description:
          'Pass the conversation to a human colleague. The conversation ends for you after your reply.',
        parameters: { type: 'object', properties: { reason }, required: ['reason'] },
      };
    case 'end_conversation':
      return {
        name,
        description:
          "End the conversation after your reply, saying how it went: resolved (the user's need was met), partial, or unresolved.",
        parameters: {
          type: 'object',
          properties: { outcome: { type: 'string', enum: [...END_OUTCOMES] }, reason },
          required: ['outcome'],
        },
      };
    case 'present_actions':
      return {
        name,
        description:
          'Show the user choices with your reply: buttons, select menus, text inputs. Messaging apps show at most 3 buttons, or a list of 10 items.',
        parameters: {
          type: 'object',
          properties: {
            prompt: { type: 'string', description: 'Text shown with the choices.' },
            elements: {
              type: 'array',
              minItems: 1,
              maxItems: 25,
              items: {
                type: 'object',
                properties: {
                  type: { type: 'string', enum: ['button', 'select', 'text_input'] },
                  id: { type: 'string', description: 'Returned to you when the user picks it.' },
                  label: { type: 'string' },
                  value: { type: 'string' },
                  placeholder: { type: 'string' },
                  options: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { label: { type: 'string' }, value: { type: 'string' } },
                      required: ['label', 'value'],
                    },
                  },
                },
                required: ['type', 'id', 'label'],
              },
            },
          },
          required: ['elements'],
        },
      };
    case 'attach_media':
      return {
        name,
        description: 'Attach a file or image (an https URL a tool gave you) to your reply.',
        parameters: {
          type: 'object',
          properties: {
            url: { type: 'string' },
            mimeType: { type: 'string', description: 'e.g. image/png, application/pdf' },
            name: { type: 'string' },
            caption: { type: 'string' },
          },
          required: ['url', 'mimeType'],
        },
      };
    default: {
      const exhaustive: never = name;
      throw new Error(`unknown system tool ${String(exhaustive)}`);
    }
  }
}

/** The system tools an agent offers: switched on, and `handoff` only when it has somewhere to go. */
export function systemToolDefinitions(
  switches: AgentSystemTools,
  handoffTargets: readonly string[],
): ToolDefinition[] {
  return SYSTEM_TOOL_NAMES.filter((name) => switches[SWITCHES[name]])
    .filter((name) => name !== 'handoff' || handoffTargets.length > 0)
    .map((name) => definition(name, handoffTargets));
}

const invalid = (message: string): { outcome: ToolOutcome } => ({
  outcome: { status: 'error', code: 'invalid_arguments', message: message.slice(0, 500) },
});

/** Models often send `null` for an optional field they leave out: null reads as absent. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

const str = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : undefined;

/**
 * A system tool call read into its effect, or an error result the model can correct. The handoff's
 * target is checked by the engine (it may not be usable); the rest is checked here.
 */
export function readSystemToolCall(
  name: SystemToolName,
  argumentsJson: string,
): { outcome: ToolOutcome; effect?: SystemEffect } {
  const parsed = parseArguments(argumentsJson);
  if (!parsed.ok) return invalid(parsed.error);
  const args = withoutNulls(parsed.args) as Record<string, unknown>;
  switch (name) {
    case 'handoff': {
      const agentName = str(args.agent, 128);
      if (agentName === undefined) return invalid('agent is required');
      const why = str(args.reason, 500);
      return {
        outcome: { status: 'ok', content: JSON.stringify({ handed_off_to: agentName }) },
        effect: { kind: 'handoff', agentName, ...(why === undefined ? {} : { reason: why }) },
      };
    }
    case 'escalate':
      return {
        outcome: { status: 'ok', content: JSON.stringify({ escalated: true }) },
        effect: { kind: 'escalate', reason: str(args.reason, 128) ?? 'agent_escalated' },
      };
    case 'end_conversation': {
      const outcome = END_OUTCOMES.find((o) => o === args.outcome);
      if (outcome === undefined) return invalid(`outcome must be one of ${END_OUTCOMES.join(', ')}`);
      return {
        outcome: { status: 'ok', content: JSON.stringify({ ending: outcome }) },
        effect: { kind: 'end', containmentType: outcome, reason: str(args.reason, 128) ?? 'agent_ended' },
      };
    }
    case 'present_actions': {
      const actionSet = actionSetSchema.safeParse({
        ...(str(args.prompt, 4000) === undefined ? {} : { prompt: str(args.prompt, 4000) }),
        elements: args.elements,
      });
      if (!actionSet.success) return invalid(actionSet.error.issues.map((i) => i.message).join('; '));
      return {
        outcome: { status: 'ok', content: JSON.stringify({ presented: actionSet.data.elements.length }) },
        effect: { kind: 'actions', actionSet: actionSet.data },
      };
    }
    case 'attach_media': {
      const media = replyMediaSchema.safeParse(args);
      if (!media.success) return invalid(media.error.issues.map((i) => i.message).join('; '));
      return {
        outcome: { status: 'ok', content: JSON.stringify({ attached: true }) },
        effect: { kind: 'media', media: media.data },
      };
    }
    default: {
      const exhaustive: never = name;
      throw new Error(`unknown system tool ${String(exhaustive)}`);
    }
  }
}
