import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import { idSchema, jsonObjectSchema, timestampSchema } from './common.js';

/**
 * Agent facts of the stream `session-<sessionId>` (beside ./session.ts): handoffs and suspended
 * tool calls. The session's current agent is the last AgentHandedOff's `toAgent` (else the
 * SessionStarted agent); a tool call that suspended its turn is pending from ToolCallSuspended
 * until its ToolCallResumed.
 */

const sessionScope = { sessionId: idSchema, projectId: idSchema };
const agentName = z.string().min(1).max(128);

export const agentHandedOffSchema = z.object({
  ...sessionScope,
  fromAgent: agentName,
  toAgent: agentName,
  /** Why, as the model said it (short; never the conversation's text). */
  reason: z.string().min(1).max(500).optional(),
  /** `local`: an agent of the project; `remote`: an agent reached over A2A at remoteUrl. */
  target: z.enum(['local', 'remote']),
  remoteUrl: z.url().max(2048).optional(),
  /** The turn's trace and the `handoff` trace event. */
  traceId: idSchema.optional(),
  spanId: idSchema.optional(),
  handedOffAt: timestampSchema,
});
export type AgentHandedOffData = z.infer<typeof agentHandedOffSchema>;
export const agentHandedOff = defineEvent({
  type: 'AgentHandedOff',
  schemaVersion: 1,
  schema: agentHandedOffSchema,
});

const toolCallSchema = z.object({
  id: z.string().min(1).max(256),
  name: z.string().min(1),
  arguments: z.string(),
});

export const toolCallSuspendedSchema = z.object({
  ...sessionScope,
  suspensionId: idSchema,
  agentName,
  toolName: z.string().min(1),
  toolCallId: z.string().min(1).max(256),
  /** The user message whose turn suspended, and the id reserved for the reply it will get. */
  userMessageId: idSchema,
  replyMessageId: idSchema,
  traceId: idSchema,
  spanId: idSchema,
  /**
   * What the turn had when it suspended, for the model call after the callback: the assistant
   * message that asked for the tools and the results of the calls that did not suspend.
   */
  pending: z.object({
    assistantText: z.string(),
    toolCalls: z.array(toolCallSchema).min(1),
    results: z.array(z.object({ toolCallId: z.string().min(1), content: z.string() })),
    /** Model calls the turn had made (the iteration limit counts on from here). */
    llmCalls: z.int().min(0),
  }),
  /** Effects the model asked for before suspending (an ACTION_SET, an ending), applied on resume. */
  effects: jsonObjectSchema.optional(),
  suspendedAt: timestampSchema,
  expiresAt: timestampSchema,
});
export type ToolCallSuspendedData = z.infer<typeof toolCallSuspendedSchema>;
export const toolCallSuspended = defineEvent({
  type: 'ToolCallSuspended',
  schemaVersion: 1,
  schema: toolCallSuspendedSchema,
});

export const toolCallResumedSchema = z.object({
  ...sessionScope,
  suspensionId: idSchema,
  /** `completed`: the external system posted the result; `timed_out`: it did not in time. */
  outcome: z.enum(['completed', 'timed_out']),
  resumedAt: timestampSchema,
});
export type ToolCallResumedData = z.infer<typeof toolCallResumedSchema>;
export const toolCallResumed = defineEvent({
  type: 'ToolCallResumed',
  schemaVersion: 1,
  schema: toolCallResumedSchema,
});
