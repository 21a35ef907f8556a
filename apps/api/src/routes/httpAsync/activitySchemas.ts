import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@parley/channels';
import {
  DELIVERY_STATUSES,
  type HttpAsyncDelivery,
  type HttpAsyncDeliveryAttempt,
} from '@parley/projection-http-async-activity';
import { z } from 'zod';

/** The Activity log routes' parameters, queries and answers (activity.ts). */

const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const timestamp = z.iso.datetime();

export const deliveryBody = z.object({
  deliveryId: z.string().describe('The X-Parley-Delivery header of its callbacks'),
  subscriptionId: z.string(),
  messageId: z.string().describe('The callback body’s message_id'),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  sessionId: z.string().nullable().describe('The runtime session; null for a test message'),
  test: z.boolean().describe('Sent by the test-message action'),
  status: z
    .enum(DELIVERY_STATUSES)
    .describe(
      'pending: queued, no attempt of this queueing made yet; failed: the last attempt failed, another is due ' +
        'at nextAttemptAt; delivered; dead_lettered: given up (redeliver to try again)',
    ),
  attempts: z
    .int()
    .describe('The highest attempt number made (0: none); numbers continue across redeliveries'),
  maxAttempts: z.int().nullable().describe('Attempts the latest queueing allows'),
  lastStatus: z.int().nullable().describe('The receiver’s HTTP status at the last attempt; null when none'),
  lastLatencyMs: z.int().nullable(),
  lastError: z.string().nullable(),
  lastAttemptAt: timestamp.nullable(),
  nextAttemptAt: timestamp.nullable(),
  deadLetterReason: z
    .string()
    .nullable()
    .describe('attempts_exhausted, subscription_deleted or subscription_paused'),
  queuedAt: timestamp.describe('When the delivery was first queued (the list’s order, newest first)'),
  redeliveredAt: timestamp.nullable().describe('The latest redelivery; null when never redelivered'),
  deliveredAt: timestamp.nullable(),
  deadLetteredAt: timestamp.nullable(),
  updatedAt: timestamp,
});

export const attemptBody = z.object({
  attempt: z.int(),
  result: z
    .enum(['delivered', 'failed', 'refused'])
    .describe('refused: the callback URL guard refused the URL'),
  status: z.int().nullable().describe('The receiver’s HTTP status; null without an answer'),
  latencyMs: z.int(),
  error: z.string().nullable(),
  attemptedAt: timestamp,
  nextAttemptAt: timestamp.nullable(),
});

export const toDeliveryBody = (d: HttpAsyncDelivery): z.infer<typeof deliveryBody> => ({
  deliveryId: d.deliveryId,
  subscriptionId: d.subscriptionId,
  messageId: d.messageId,
  eventType: d.eventType as WebhookEventType,
  sessionId: d.sessionId,
  test: d.test,
  status: d.status,
  attempts: d.attempts,
  maxAttempts: d.maxAttempts,
  lastStatus: d.lastStatus,
  lastLatencyMs: d.lastLatencyMs,
  lastError: d.lastError,
  lastAttemptAt: isoOrNull(d.lastAttemptAt),
  nextAttemptAt: isoOrNull(d.nextAttemptAt),
  deadLetterReason: d.deadLetterReason,
  queuedAt: d.queuedAt.toISOString(),
  redeliveredAt: isoOrNull(d.requeuedAt),
  deliveredAt: isoOrNull(d.deliveredAt),
  deadLetteredAt: isoOrNull(d.deadLetteredAt),
  updatedAt: d.updatedAt.toISOString(),
});

export const toAttemptBody = (a: HttpAsyncDeliveryAttempt): z.infer<typeof attemptBody> => ({
  attempt: a.attempt,
  result: a.result as z.infer<typeof attemptBody>['result'],
  status: a.status,
  latencyMs: a.latencyMs,
  error: a.error,
  attemptedAt: a.attemptedAt.toISOString(),
  nextAttemptAt: isoOrNull(a.nextAttemptAt),
});

export const subscriptionParams = z.object({
  projectId: z.string().min(1).max(256),
  id: z.string().min(1).max(64),
});
export const deliveryParams = subscriptionParams.extend({ deliveryId: z.string().min(1).max(256) });
export const listQuery = z.strictObject({
  eventType: z.enum(WEBHOOK_EVENT_TYPES).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  messageId: z.string().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export const testBody = z.strictObject({
  eventType: z
    .enum(WEBHOOK_EVENT_TYPES)
    .optional()
    .describe('One the subscription subscribes; default agent.response, or its first event type without it'),
});
export const queuedAnswer = z.object({
  success: z.literal(true),
  deliveryId: z.string(),
  messageId: z.string(),
  firstAttempt: z.int().describe('The attempt number this queueing starts at (X-Parley-Attempt)'),
});
