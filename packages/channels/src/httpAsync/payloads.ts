import { z } from 'zod';

/**
 * The callback bodies of the HTTP async channel (spec 001 §4.9, §6): what a subscriber's server
 * receives, as zod schemas shared by the service (it builds them) and receivers (they validate
 * them: `callbackPayloadSchemas[eventType].parse(JSON.parse(rawBody))`). The event type travels in
 * the `X-Parley-Event` header, not in the §4.9 body, whose fields are exactly the spec's.
 */

const jsonObject = z.record(z.string(), z.unknown());

/** `response_metadata.responseProvenance.kind`. */
export const RESPONSE_PROVENANCE_KINDS = [
  /** The language model wrote the reply. */
  'llm_generated',
  /** The agent's fallback reply (a failing or looping model). */
  'fallback',
  /** A fixed reply that is not the fallback (a guardrail's blocked-input reply). */
  'static',
  /** No reply: the turn failed (outcome.status `error`). */
  'none',
] as const;

/** Callback `outcome.status`: `ok` as the spec shows; `error` when the turn failed and there is no reply. */
export const CALLBACK_OUTCOME_STATUSES = ['ok', 'error'] as const;

/** agent.response, the §4.9 table exactly (no `intent`, no `conv_status`). */
export const agentResponsePayloadSchema = z.strictObject({
  message_id: z.string().min(1),
  session_key: z.string().min(1),
  response: z.string(),
  channel_output: z.object({ kind: z.literal('text'), text: z.string() }).loose(),
  outcome: z.strictObject({ status: z.enum(CALLBACK_OUTCOME_STATUSES), usedFallback: z.boolean() }),
  trace_context: z.strictObject({
    session_id: z.string().min(1).nullable(),
    /** The delivery's id, as in the `X-Parley-Delivery` header and the Activity log. */
    delivery: z.string().min(1),
  }),
  session_id: z.string().min(1).nullable(),
  is_new_session: z.boolean(),
  response_metadata: z.strictObject({
    isLlmGenerated: z.boolean(),
    responseProvenance: z.strictObject({
      schemaVersion: z.literal(1),
      kind: z.enum(RESPONSE_PROVENANCE_KINDS),
      disclaimerRequired: z.boolean(),
      usedLlmInternally: z.boolean(),
    }),
  }),
  metadata: jsonObject,
});
export type AgentResponsePayload = z.infer<typeof agentResponsePayloadSchema>;

/** agent.status `status`: the message's processing, in order; `failed` ends it without a reply. */
export const AGENT_STATUSES = ['processing', 'completed', 'failed'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/**
 * agent.status (payload "not shown" in the spec; ours): one per transition of a message's
 * processing. Idempotency key: (message_id, status).
 */
export const agentStatusPayloadSchema = z.strictObject({
  message_id: z.string().min(1),
  session_key: z.string().min(1),
  session_id: z.string().min(1).nullable(),
  status: z.enum(AGENT_STATUSES),
  /** The status before this one (null for `processing`). */
  previous_status: z.enum(AGENT_STATUSES).nullable(),
  /** When the transition happened (ISO 8601); callbacks can arrive out of order, this orders them. */
  occurred_at: z.string().min(1),
  /** `failed`: a short reason (`turn_failed`); null otherwise. */
  reason: z.string().min(1).nullable(),
  /** `completed`: whether the agent ended the conversation in this turn. */
  session_ended: z.boolean(),
  metadata: jsonObject,
});
export type AgentStatusPayload = z.infer<typeof agentStatusPayloadSchema>;

/**
 * agent.media (payload "not shown" in the spec; ours): media the agent's reply carries, one
 * callback per reply with media. Idempotency key: message_id (per event type).
 */
export const agentMediaPayloadSchema = z.strictObject({
  message_id: z.string().min(1),
  session_key: z.string().min(1),
  session_id: z.string().min(1).nullable(),
  media: z
    .array(
      z.strictObject({
        /** `image`, `audio`, `video` or `file`. */
        type: z.enum(['image', 'audio', 'video', 'file']),
        url: z.string().min(1),
        mime_type: z.string().min(1).nullable(),
        name: z.string().min(1).nullable(),
      }),
    )
    .min(1),
  metadata: jsonObject,
});
export type AgentMediaPayload = z.infer<typeof agentMediaPayloadSchema>;

/**
 * The earlier route's callback (`POST /api/v1/channels/http_async/send`, spec 001 §4.9): camelCase,
 * `eventType` in the body. agent.status uses the same shape with `status` instead of `text`.
 */
export const legacyResponsePayloadSchema = z.strictObject({
  eventType: z.literal('agent.response'),
  sessionId: z.string().min(1).nullable(),
  messageId: z.string().min(1),
  text: z.string(),
  metadata: jsonObject,
});
export const legacyStatusPayloadSchema = z.strictObject({
  eventType: z.literal('agent.status'),
  sessionId: z.string().min(1).nullable(),
  messageId: z.string().min(1),
  status: z.enum(AGENT_STATUSES),
  occurredAt: z.string().min(1),
  metadata: jsonObject,
});

export const callbackPayloadSchemas = {
  'agent.response': agentResponsePayloadSchema,
  'agent.status': agentStatusPayloadSchema,
  'agent.media': agentMediaPayloadSchema,
} as const;
