import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import { countSchema, durationMsSchema, idSchema, jsonObjectSchema, timestampSchema } from './common.js';

/**
 * The HTTP async channel (spec 001 §2.7, §4.9, §6): messages submitted for an agent and the
 * callbacks that carry its answers to a webhook subscription. A message's acceptance goes to the
 * stream `httpasync-<messageId>`, each callback delivery's events (queued, attempts, outcome) to
 * `httpasync-<deliveryId>`: one writer per stream at a time (a message's callbacks are delivered
 * concurrently). The Activity log of a subscription is a projection of them. No event holds a secret: not the subscription's HMAC
 * secret or bearer token, not the signature sent, not the API key of the submit.
 */

export const HTTP_ASYNC_EVENT_TYPES = ['agent.response', 'agent.status', 'agent.media'] as const;
/** How the message came in: the §4.9 route, the earlier `http_async/send` route. */
export const HTTP_ASYNC_ROUTES = ['message', 'send'] as const;
export const HTTP_ASYNC_ATTEMPT_RESULTS = ['delivered', 'failed', 'refused'] as const;
export const HTTP_ASYNC_DEAD_LETTER_REASONS = [
  /** Every attempt of the schedule failed. */
  'attempts_exhausted',
  /** The subscription was deleted before the callback could be delivered. */
  'subscription_deleted',
  /** The subscription was paused when the attempt was due. */
  'subscription_paused',
] as const;

const scope = {
  /** The submitted message (the acknowledgement's and the callback's `message_id`). */
  messageId: idSchema,
  projectId: idSchema,
  subscriptionId: idSchema,
};

const deliveryScope = {
  ...scope,
  /** One callback of one event type for one message; the same across its attempts (X-Parley-Delivery). */
  deliveryId: idSchema,
  eventType: z.enum(HTTP_ASYNC_EVENT_TYPES),
};

/** A message was accepted (202) for the agent: what the caller sent, as queued. */
export const httpAsyncMessageAcceptedSchema = z.object({
  ...scope,
  route: z.enum(HTTP_ASYNC_ROUTES),
  /** The canonical, namespaced conversation key (the acknowledgement's `session_key`). */
  sessionKey: z.string().min(1).max(512),
  /** True when this message started the conversation (the caller's own key was new). */
  newConversation: z.boolean(),
  /** The user text. */
  text: z.string(),
  /** The request's `metadata`, returned unchanged in the callback. */
  metadata: jsonObjectSchema.optional(),
  acceptedAt: timestampSchema,
});
export type HttpAsyncMessageAcceptedData = z.infer<typeof httpAsyncMessageAcceptedSchema>;
export const httpAsyncMessageAccepted = defineEvent({
  type: 'HttpAsyncMessageAccepted',
  schemaVersion: 1,
  schema: httpAsyncMessageAcceptedSchema,
});

/** A callback was queued for delivery: the body exactly as every attempt sends it. */
export const httpAsyncCallbackQueuedSchema = z.object({
  ...deliveryScope,
  /** The runtime session the callback is about; absent for a test message. */
  sessionId: idSchema.optional(),
  /** The JSON body of the callback (docs/http-async.md "Callback bodies"). */
  payload: jsonObjectSchema,
  /** A test message from the subscription's test action, not an agent's answer. */
  test: z.boolean(),
  /**
   * The number of this queueing's first attempt: 1, or after a redelivery of a dead-lettered (or
   * delivered) callback, one more than the attempts made before (attempt numbers never repeat).
   */
  firstAttempt: z.int().min(1),
  /** Attempts this queueing allows: the retry schedule's length plus one (the first attempt). */
  maxAttempts: z.int().min(1),
  queuedAt: timestampSchema,
});
export type HttpAsyncCallbackQueuedData = z.infer<typeof httpAsyncCallbackQueuedSchema>;
export const httpAsyncCallbackQueued = defineEvent({
  type: 'HttpAsyncCallbackQueued',
  schemaVersion: 1,
  schema: httpAsyncCallbackQueuedSchema,
});

/** One delivery attempt and what the receiver answered. */
export const httpAsyncCallbackAttemptedSchema = z.object({
  ...deliveryScope,
  /** 1 for the first attempt; numbers continue across redeliveries. */
  attempt: z.int().min(1),
  /** `refused`: the callback URL guard refused the URL at delivery (no request was sent). */
  result: z.enum(HTTP_ASYNC_ATTEMPT_RESULTS),
  /** The receiver's HTTP status; absent when there was no answer (timeout, network, refusal). */
  status: countSchema.optional(),
  /** From sending the request to the end of the answer (or the failure). */
  latencyMs: durationMsSchema,
  /** Why it failed, short (`HTTP 503`, `timeout`, the refusal reason); never a secret or a URL. */
  error: z.string().min(1).max(500).optional(),
  attemptedAt: timestampSchema,
  /** When the next attempt is due; absent after the last attempt or a success. */
  nextAttemptAt: timestampSchema.optional(),
});
export type HttpAsyncCallbackAttemptedData = z.infer<typeof httpAsyncCallbackAttemptedSchema>;
export const httpAsyncCallbackAttempted = defineEvent({
  type: 'HttpAsyncCallbackAttempted',
  schemaVersion: 1,
  schema: httpAsyncCallbackAttemptedSchema,
});

/** The receiver accepted the callback (2xx): the delivery's final outcome. */
export const httpAsyncCallbackDeliveredSchema = z.object({
  ...deliveryScope,
  attempts: z.int().min(1),
  status: countSchema,
  deliveredAt: timestampSchema,
});
export type HttpAsyncCallbackDeliveredData = z.infer<typeof httpAsyncCallbackDeliveredSchema>;
export const httpAsyncCallbackDelivered = defineEvent({
  type: 'HttpAsyncCallbackDelivered',
  schemaVersion: 1,
  schema: httpAsyncCallbackDeliveredSchema,
});

/** The callback was given up: the delivery's final outcome (a redelivery queues it again). */
export const httpAsyncCallbackDeadLetteredSchema = z.object({
  ...deliveryScope,
  reason: z.enum(HTTP_ASYNC_DEAD_LETTER_REASONS),
  /** Attempts made (0 when the subscription was gone or paused before the first). */
  attempts: countSchema,
  /** The last attempt's error, when there was an attempt. */
  lastError: z.string().min(1).max(500).optional(),
  lastStatus: countSchema.optional(),
  deadLetteredAt: timestampSchema,
});
export type HttpAsyncCallbackDeadLetteredData = z.infer<typeof httpAsyncCallbackDeadLetteredSchema>;
export const httpAsyncCallbackDeadLettered = defineEvent({
  type: 'HttpAsyncCallbackDeadLettered',
  schemaVersion: 1,
  schema: httpAsyncCallbackDeadLetteredSchema,
});
