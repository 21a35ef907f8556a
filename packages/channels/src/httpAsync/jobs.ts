import { randomBytes } from 'node:crypto';
import { jsonObjectSchema } from '@parley/events';
import { defineJob, type JobPayload } from '@parley/platform';
import { z } from 'zod';
import { derivedUuid } from '../inbound/ids.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './subscriptionSchema.js';

/**
 * The HTTP async channel's durable work (pg-boss, schema `pgboss`, beside the channel queues):
 * one turn job per accepted message, one callback job per delivery attempt. Jobs are announced
 * with notifyChannelJob (CHANNEL_JOBS_NOTIFY_CHANNEL) in the transaction that queues them.
 */

/** One accepted message: run the agent's turn, then queue its callbacks. */
export const HTTP_ASYNC_TURN_QUEUE = 'http-async-turn';
/** One attempt of one callback delivery; a failed attempt queues the next one (startAfter). */
export const HTTP_ASYNC_CALLBACK_QUEUE = 'http-async-callback';

export type HttpAsyncRoute = 'message' | 'send';

/** An http-async-turn job: one accepted message. */
export const httpAsyncTurnJob = defineJob(
  HTTP_ASYNC_TURN_QUEUE,
  z.object({
    messageId: z.string().min(1),
    subscriptionId: z.string().min(1),
    projectId: z.string().min(1),
    tenantId: z.string().min(1),
    route: z.enum(['message', 'send']),
    /** The canonical conversation key (the acknowledgement's session_key). */
    sessionKey: z.string().min(1),
    /** This message started the conversation. */
    newConversation: z.boolean(),
    text: z.string(),
    /** The request's metadata (returned unchanged in the callbacks); {} when none was sent. */
    metadata: jsonObjectSchema,
    /** ISO 8601. */
    acceptedAt: z.string(),
  }),
);
export type HttpAsyncTurnJobData = JobPayload<typeof httpAsyncTurnJob>;

/** An http-async-callback job: one attempt of one callback delivery. */
export const httpAsyncCallbackJob = defineJob(
  HTTP_ASYNC_CALLBACK_QUEUE,
  z.object({
    deliveryId: z.string().min(1),
    messageId: z.string().min(1),
    subscriptionId: z.string().min(1),
    projectId: z.string().min(1),
    tenantId: z.string().min(1),
    eventType: z.enum(WEBHOOK_EVENT_TYPES),
    /** The runtime session, when the callback is about one. */
    sessionId: z.string().min(1).optional(),
    /** The JSON body every attempt sends (serialised once per attempt, signed over those bytes). */
    payload: jsonObjectSchema,
    test: z.boolean(),
    /** This job's attempt number (1-based, continuing across redeliveries). */
    attempt: z.int().min(1),
    /** The last attempt number this queueing allows (firstAttempt + schedule length - 1). */
    lastAttempt: z.int().min(1),
    /** The first attempt of this queueing (HttpAsyncCallbackQueued.firstAttempt). */
    firstAttempt: z.int().min(1),
  }),
);
export type HttpAsyncCallbackJobData = JobPayload<typeof httpAsyncCallbackJob>;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps every character equally likely.
    for (const byte of randomBytes(length)) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
  }
  return out;
}

/** `ham_` and 20 base62 characters: one accepted message (or test message). */
export const newHttpAsyncMessageId = (): string => `ham_${base62(20)}`;

/**
 * Canonical conversation keys (spec 001 §4.9 "canonical, namespaced"): `ha:<subscriptionId>:<22
 * base62>`. The random part is the service's: a key the caller builds itself is not one the
 * service issued, and is refused. A session_key with this prefix is always read as canonical.
 */
export const CANONICAL_SESSION_KEY_PREFIX = 'ha:';
export const newCanonicalSessionKey = (subscriptionId: string): string =>
  `${CANONICAL_SESSION_KEY_PREFIX}${subscriptionId}:${base62(22)}`;
export const isCanonicalSessionKey = (key: string): boolean => key.startsWith(CANONICAL_SESSION_KEY_PREFIX);

/** The turn job of one accepted message. */
export const httpAsyncTurnJobId = (subscriptionId: string, messageId: string): string =>
  derivedUuid('http-async-turn-job', JSON.stringify([subscriptionId, messageId]));

/**
 * One callback of one event type about one message; `discriminator` separates several of the
 * same type (agent.status: the status). Stable: a turn job run again queues the same deliveries.
 */
export const httpAsyncDeliveryId = (
  subscriptionId: string,
  messageId: string,
  eventType: WebhookEventType,
  discriminator = '',
): string =>
  derivedUuid('http-async-delivery', JSON.stringify([subscriptionId, messageId, eventType, discriminator]));

/** The job of one attempt of one delivery. */
export const httpAsyncAttemptJobId = (deliveryId: string, attempt: number): string =>
  derivedUuid('http-async-attempt-job', JSON.stringify([deliveryId, attempt]));

/**
 * Event ids of the log (derived, so a job run again appends nothing new): `kind` is `accepted`,
 * `queued`, `attempted`, `delivered` or `dead-lettered`; `n` the attempt number (for `queued`, the
 * first attempt of the queueing; for `accepted`, 0).
 */
export const httpAsyncEventId = (kind: string, id: string, n: number): string =>
  derivedUuid('http-async-event', JSON.stringify([kind, id, n]));

/**
 * The retry schedule: the delay before attempt 2, 3, ... (seconds). 12 attempts over about 16
 * hours; each delay is drawn within ±20% (jitter) so receivers coming back are not hit by every
 * retry at once. HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE replaces it (parseRetrySchedule).
 */
export const DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 28_800,
];
/** ± this fraction of the scheduled delay. */
export const CALLBACK_RETRY_JITTER = 0.2;
