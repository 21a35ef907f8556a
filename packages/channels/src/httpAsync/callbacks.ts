import type { HttpAsyncRoute } from './jobs.js';
import {
  type AgentResponsePayload,
  type AgentStatus,
  type AgentStatusPayload,
  agentResponsePayloadSchema,
  agentStatusPayloadSchema,
  legacyResponsePayloadSchema,
  legacyStatusPayloadSchema,
} from './payloads.js';

/**
 * The callback bodies of one message, as the turn job queues them (payloads.ts has their schemas,
 * docs/http-async.md "Callback bodies" their fields). Every builder validates what it returns: a
 * body the schema refuses is a bug, and throws here rather than reaching a receiver.
 */

/** What a callback says about the turn: its reply, or that it failed without one. */
export type CallbackTurnOutcome =
  | {
      kind: 'replied';
      /** The runtime session; null only for a reply made without one (a test message). */
      sessionId: string | null;
      /** The turn started the runtime session. */
      created: boolean;
      text: string;
      usedFallback: boolean;
      isLlmGenerated: boolean;
      /** LLM calls made in the turn. */
      llmCalls: number;
      /** The agent ended the conversation in this turn. */
      ended: boolean;
    }
  | {
      kind: 'failed';
      /** The conversation's session when one was known before the turn; null otherwise. */
      sessionId: string | null;
    };

export interface CallbackMessage {
  messageId: string;
  sessionKey: string;
  /** The request's metadata, returned unchanged. */
  metadata: Record<string, unknown>;
}

type Provenance = AgentResponsePayload['response_metadata']['responseProvenance']['kind'];

/**
 * `responseProvenance.kind`: `llm_generated` when the model wrote the reply, `fallback` for the
 * agent's fallback reply, `static` for another fixed reply (a guardrail's blocked-input reply),
 * `none` when there is no reply (the turn failed).
 */
export function provenanceKind(outcome: CallbackTurnOutcome): Provenance {
  if (outcome.kind === 'failed') return 'none';
  if (outcome.usedFallback) return 'fallback';
  return outcome.isLlmGenerated ? 'llm_generated' : 'static';
}

/**
 * agent.response (spec 001 §4.9, exactly its fields). A failed turn answers `response: ''`,
 * `outcome.status: 'error'` and provenance `none`. `disclaimerRequired` is `isLlmGenerated` (text a
 * model wrote is shown as such); `usedLlmInternally` says a model was called in the turn, even when
 * the reply itself is fixed (a fallback after a tool loop).
 */
export function agentResponsePayload(
  message: CallbackMessage,
  outcome: CallbackTurnOutcome,
  deliveryId: string,
): AgentResponsePayload {
  const replied = outcome.kind === 'replied';
  const text = replied ? outcome.text : '';
  const isLlmGenerated = replied && outcome.isLlmGenerated && !outcome.usedFallback;
  return agentResponsePayloadSchema.parse({
    message_id: message.messageId,
    session_key: message.sessionKey,
    response: text,
    channel_output: { kind: 'text', text },
    outcome: { status: replied ? 'ok' : 'error', usedFallback: replied && outcome.usedFallback },
    trace_context: { session_id: outcome.sessionId, delivery: deliveryId },
    session_id: outcome.sessionId,
    is_new_session: replied && outcome.created,
    response_metadata: {
      isLlmGenerated,
      responseProvenance: {
        schemaVersion: 1,
        kind: provenanceKind(outcome),
        disclaimerRequired: isLlmGenerated,
        usedLlmInternally: replied && (outcome.llmCalls > 0 || isLlmGenerated),
      },
    },
    metadata: message.metadata,
  });
}

/** The status before each status of a message's processing. */
const PREVIOUS_STATUS: Record<AgentStatus, AgentStatus | null> = {
  processing: null,
  completed: 'processing',
  failed: 'processing',
};

export interface StatusTransition {
  status: AgentStatus;
  sessionId: string | null;
  occurredAt: Date;
  /** `completed`: the agent ended the conversation in this turn. */
  sessionEnded?: boolean;
}

/** agent.status (ours; the spec does not show it): one per transition; `failed` has reason `turn_failed`. */
export function agentStatusPayload(
  message: CallbackMessage,
  transition: StatusTransition,
): AgentStatusPayload {
  return agentStatusPayloadSchema.parse({
    message_id: message.messageId,
    session_key: message.sessionKey,
    session_id: transition.sessionId,
    status: transition.status,
    previous_status: PREVIOUS_STATUS[transition.status],
    occurred_at: transition.occurredAt.toISOString(),
    reason: transition.status === 'failed' ? 'turn_failed' : null,
    session_ended: transition.status === 'completed' && transition.sessionEnded === true,
    metadata: message.metadata,
  });
}

/** The earlier route's agent.response (camelCase, `eventType` in the body); '' text when the turn failed. */
export function legacyResponsePayload(message: CallbackMessage, outcome: CallbackTurnOutcome) {
  return legacyResponsePayloadSchema.parse({
    eventType: 'agent.response',
    sessionId: outcome.sessionId,
    messageId: message.messageId,
    text: outcome.kind === 'replied' ? outcome.text : '',
    metadata: message.metadata,
  });
}

/** The earlier route's agent.status. */
export function legacyStatusPayload(message: CallbackMessage, transition: StatusTransition) {
  return legacyStatusPayloadSchema.parse({
    eventType: 'agent.status',
    sessionId: transition.sessionId,
    messageId: message.messageId,
    status: transition.status,
    occurredAt: transition.occurredAt.toISOString(),
    metadata: message.metadata,
  });
}

/** The agent.response body of a message submitted on `route`. */
export const responseBodyFor = (
  route: HttpAsyncRoute,
  message: CallbackMessage,
  outcome: CallbackTurnOutcome,
  deliveryId: string,
): Record<string, unknown> =>
  route === 'send'
    ? legacyResponsePayload(message, outcome)
    : agentResponsePayload(message, outcome, deliveryId);

/** The agent.status body of a message submitted on `route`. */
export const statusBodyFor = (
  route: HttpAsyncRoute,
  message: CallbackMessage,
  transition: StatusTransition,
): Record<string, unknown> =>
  route === 'send' ? legacyStatusPayload(message, transition) : agentStatusPayload(message, transition);
