import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import {
  channelSchema,
  containmentTypeSchema,
  dimensionsSchema,
  durationMsSchema,
  environmentSchema,
  idSchema,
  jsonObjectSchema,
  sessionEndStateSchema,
  timestampSchema,
  traceEventTypeSchema,
} from './common.js';

/**
 * Events of the stream `session-<sessionId>`: the lifecycle, the messages and the trace of one
 * session (LLM calls made in a session are appended there too, see ./llm.ts). Every event repeats
 * sessionId and projectId so a projection that handles only one type can still place its row.
 */

const sessionScope = {
  sessionId: idSchema,
  projectId: idSchema,
};

export const sessionStartedSchema = z.object({
  ...sessionScope,
  tenantId: idSchema.optional(),
  deploymentId: idSchema.optional(),
  /** The agent the session starts with (handoffs are trace events). */
  agentName: z.string().min(1),
  channel: channelSchema,
  /** Transport-specific channel type (spec 000 §2.3), when the channel has several. */
  channelType: z.string().min(1).max(128).optional(),
  environment: environmentSchema,
  /** End-user identity recorded on the channel (the session list's `channelUId` filter). */
  channelUserId: z.string().min(1).max(512).optional(),
  /**
   * The caller-number match key as computed when the session started (spec 000 §4.2 callerNumber
   * rules: cleaned, E.164 where phone-like, `Anonymous` when withheld, at most 128 characters).
   * Stored, not recomputed, because the spec matches "the same key that was stored at call time".
   */
  callerNumberKey: z.string().min(1).max(128).optional(),
  /** Conversation or thread key on the channel (spec 001 §2.1), e.g. the canonical HTTP async session_key. */
  externalSessionKey: z.string().min(1).optional(),
  /** Custom session dimensions, name to value (spec 000 §2.2 `traceDimensions`). */
  traceDimensions: dimensionsSchema,
  /**
   * The session's own recording setting (e.g. the caller opted out, or the agent's channel does
   * not record). Absent: the project's setting decides. The recordings API says
   * `recording_disabled` whichever setting switched recording off, never which one.
   */
  recordingEnabled: z.boolean().optional(),
  /** Playground or test traffic. Absent: not known (the session list shows null). */
  isTest: z.boolean().optional(),
  startedAt: timestampSchema,
});
export type SessionStartedData = z.infer<typeof sessionStartedSchema>;
export const sessionStarted = defineEvent({
  type: 'SessionStarted',
  schemaVersion: 1,
  schema: sessionStartedSchema,
});

export const sessionEndedSchema = z.object({
  ...sessionScope,
  /** The state the session ended in (spec 000 §3), `failed` included. */
  status: sessionEndStateSchema,
  /** How the session was resolved. Absent when the runtime could not classify it (e.g. failed). */
  containmentType: containmentTypeSchema.optional(),
  /** Why it ended, as a code (`user_ended`, `idle_timeout`, `api`, `error`...); never message text. */
  reason: z.string().min(1).max(128).optional(),
  endedAt: timestampSchema,
});
export type SessionEndedData = z.infer<typeof sessionEndedSchema>;
export const sessionEnded = defineEvent({
  type: 'SessionEnded',
  schemaVersion: 1,
  schema: sessionEndedSchema,
});

/**
 * The session went idle (spec 000 §3): no activity for the idle threshold. Appended by the worker's
 * lifecycle sweep. The session stays idle while nothing later than `lastActivityAt` is recorded;
 * the next activity (a message, a reply, a trace event, an LLM call) makes it active again, so
 * there is no "resumed" event. See docs/sessions.md.
 */
export const sessionIdledSchema = z.object({
  ...sessionScope,
  /** The latest activity the sweep saw: the idle period starts here. */
  lastActivityAt: timestampSchema,
  /** When the session became idle: lastActivityAt plus the idle threshold in force. */
  idledAt: timestampSchema,
});
export type SessionIdledData = z.infer<typeof sessionIdledSchema>;
export const sessionIdled = defineEvent({
  type: 'SessionIdled',
  schemaVersion: 1,
  schema: sessionIdledSchema,
});

/**
 * An ended session was archived (spec 000 §3), by the worker's lifecycle sweep once it had been
 * ended for the archive period. Terminal: the status reads `archived`, the containment type and
 * end time stay those of the end.
 */
export const sessionArchivedSchema = z.object({
  ...sessionScope,
  /** The endedAt of the end the sweep archived. */
  endedAt: timestampSchema,
  /** endedAt plus the archive period in force. */
  archivedAt: timestampSchema,
});
export type SessionArchivedData = z.infer<typeof sessionArchivedSchema>;
export const sessionArchived = defineEvent({
  type: 'SessionArchived',
  schemaVersion: 1,
  schema: sessionArchivedSchema,
});

/** A message from the end user, normalized by the channel adapter (spec 001 §2.1). */
export const messageReceivedSchema = z.object({
  ...sessionScope,
  messageId: idSchema,
  /** The message id on the external platform; adapters deduplicate on it. */
  externalMessageId: z.string().min(1).optional(),
  text: z.string(),
  /** Interactive callback data (button clicks, menu selections). */
  actionEvent: jsonObjectSchema.optional(),
  /** Channel-specific metadata, as the adapter normalized it. No credentials. */
  channelMetadata: jsonObjectSchema.optional(),
  /** Turn-scoped metadata the sender attached to this message (A2A `message.metadata.messageMetadata`). */
  messageMetadata: jsonObjectSchema.optional(),
  /** Original message time on the channel, when it gives one. */
  sentAt: timestampSchema.optional(),
  receivedAt: timestampSchema,
});
export type MessageReceivedData = z.infer<typeof messageReceivedSchema>;
export const messageReceived = defineEvent({
  type: 'MessageReceived',
  schemaVersion: 1,
  schema: messageReceivedSchema,
});

/**
 * ACTION_SET (spec 001 §1): interactive output the channel adapter renders natively where it can
 * (buttons, select menus, text inputs) and as text elsewhere. Ids are what the channel sends back
 * in MessageReceived.actionEvent when the user acts on an element.
 */
const actionElementId = z.string().min(1).max(100);
const actionLabel = z.string().min(1).max(200);
export const actionSetElementSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('button'),
    id: actionElementId,
    label: actionLabel,
    /** What the channel reports back when clicked; the id when absent. */
    value: z.string().min(1).max(1000).optional(),
    style: z.enum(['primary', 'secondary', 'danger']).optional(),
  }),
  z.object({
    type: z.literal('select'),
    id: actionElementId,
    label: actionLabel,
    placeholder: z.string().min(1).max(200).optional(),
    options: z
      .array(z.object({ label: actionLabel, value: z.string().min(1).max(1000) }))
      .min(1)
      .max(100),
  }),
  z.object({
    type: z.literal('text_input'),
    id: actionElementId,
    label: actionLabel,
    placeholder: z.string().min(1).max(200).optional(),
    multiline: z.boolean().optional(),
    maxLength: z.int().min(1).max(10_000).optional(),
  }),
]);
export type ActionSetElement = z.infer<typeof actionSetElementSchema>;
export const actionSetSchema = z.object({
  /** Text shown with the elements (and alone on text-only channels). */
  prompt: z.string().max(4000).optional(),
  elements: z.array(actionSetElementSchema).min(1).max(25),
});
export type ActionSet = z.infer<typeof actionSetSchema>;

/** One media item of a reply: a URL the agent's tools produced (never fetched or stored by Parley). */
export const replyMediaSchema = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  mimeType: z
    .string()
    .regex(/^[a-z]+\/[A-Za-z0-9.+-]+$/)
    .max(128),
  name: z.string().min(1).max(256).optional(),
  caption: z.string().min(1).max(1024).optional(),
});
export type ReplyMedia = z.infer<typeof replyMediaSchema>;

export const agentRepliedSchema = z.object({
  ...sessionScope,
  messageId: idSchema,
  /** The user message this answers, when there is one (proactive messages have none). */
  inReplyTo: idSchema.optional(),
  agentName: z.string().min(1),
  /** The reply as plain text (what text-only channels and the HTTP async `response` carry). */
  text: z.string(),
  /**
   * Renderable structured output, e.g. an ACTION_SET of buttons, menus and inputs (spec 001 §1).
   * Opaque JSON for now; a typed shape would be a new optional field or a new version.
   */
  structuredOutput: jsonObjectSchema.optional(),
  /** The reply's ACTION_SET (buttons, select menus, text inputs), when the agent offered one. */
  actionSet: actionSetSchema.optional(),
  /** Media the reply carries (HTTP async `agent.media`, channels that send media). */
  media: z.array(replyMediaSchema).min(1).max(10).optional(),
  /** The agent answered with its fallback (HTTP async `outcome.usedFallback`). */
  usedFallback: z.boolean().optional(),
  /** Provenance for `response_metadata.isLlmGenerated` (spec 001 §4.9). */
  isLlmGenerated: z.boolean().optional(),
  repliedAt: timestampSchema,
});
export type AgentRepliedData = z.infer<typeof agentRepliedSchema>;
export const agentReplied = defineEvent({
  type: 'AgentReplied',
  schemaVersion: 1,
  schema: agentRepliedSchema,
});

/**
 * One trace event (spec 001 §2.6). Spans nest through parentSpanId. Token usage lives in
 * LlmCallRecorded (linked by llmCallId), not here, so session totals count every call once.
 */
export const traceEventRecordedSchema = z.object({
  ...sessionScope,
  traceId: idSchema,
  spanId: idSchema,
  /** Absent for a root span. */
  parentSpanId: idSchema.optional(),
  eventType: traceEventTypeSchema,
  /** Tool, guardrail, agent or state name, depending on eventType. */
  name: z.string().min(1).optional(),
  /** Outcome: tool success rate and guardrail block rate are computed from it. */
  status: z.enum(['ok', 'error', 'blocked']).optional(),
  /** Decision kind for `decision` events (the trace API's decisionKind filter), e.g. `handoff`. */
  decisionKind: z.string().min(1).optional(),
  /** The LlmCallRecorded callId of an `llm_call` event. */
  llmCallId: idSchema.optional(),
  startedAt: timestampSchema,
  durationMs: durationMsSchema.optional(),
  /** Type-specific details (tool parameters, decision inputs, error code...). */
  attributes: jsonObjectSchema.optional(),
});
export type TraceEventRecordedData = z.infer<typeof traceEventRecordedSchema>;
export const traceEventRecorded = defineEvent({
  type: 'TraceEventRecorded',
  schemaVersion: 1,
  schema: traceEventRecordedSchema,
});
