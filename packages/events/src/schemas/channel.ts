import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import { countSchema, idSchema, timestampSchema } from './common.js';

/**
 * Delivery of agent replies on a channel connection (spec 001 §4.1 "Processing"): appended by the
 * inbound worker to the stream `session-<sessionId>` of the conversation, after AgentReplied. No
 * event holds credentials, platform tokens or the request sent.
 */

const deliveryScope = {
  sessionId: idSchema,
  projectId: idSchema,
  /** The channel connection the reply went out on. */
  connectionId: idSchema,
  channelType: z.string().min(1).max(128),
  /** The reply (AgentReplied.messageId). */
  messageId: idSchema,
  /** Attempts made, this one included. */
  attempts: z.int().min(1),
};

export const channelMessageSentSchema = z.object({
  ...deliveryScope,
  /** The message id the platform gave the sent message, when it gives one. */
  externalMessageId: z.string().min(1).max(512).optional(),
  sentAt: timestampSchema,
});
export type ChannelMessageSentData = z.infer<typeof channelMessageSentSchema>;
export const channelMessageSent = defineEvent({
  type: 'ChannelMessageSent',
  schemaVersion: 1,
  schema: channelMessageSentSchema,
});

/** The reply could not be delivered: a permanent refusal, or the last retry failed. */
export const channelSendFailedSchema = z.object({
  ...deliveryScope,
  /** A short description of the last failure (platform error code or HTTP status); never a secret. */
  error: z.string().min(1).max(1000),
  /** The platform's HTTP status of the last attempt, when there was a response. */
  status: countSchema.optional(),
  /** False when the platform refused for good (no retry was worth making). */
  retryable: z.boolean(),
  failedAt: timestampSchema,
});
export type ChannelSendFailedData = z.infer<typeof channelSendFailedSchema>;
export const channelSendFailed = defineEvent({
  type: 'ChannelSendFailed',
  schemaVersion: 1,
  schema: channelSendFailedSchema,
});

/**
 * The reply was deliberately not delivered: the channel's own rule held it back (the email
 * channel's per-address auto-reply cooldown, spec 001 §8). The agent's reply stays in the session.
 */
export const channelSendSuppressedSchema = z.object({
  ...deliveryScope,
  /** Why, as the adapter says it (`auto_reply_cooldown`). */
  reason: z.string().min(1).max(200),
  suppressedAt: timestampSchema,
});
export type ChannelSendSuppressedData = z.infer<typeof channelSendSuppressedSchema>;
export const channelSendSuppressed = defineEvent({
  type: 'ChannelSendSuppressed',
  schemaVersion: 1,
  schema: channelSendSuppressedSchema,
});

/**
 * The platform reported on a reply it was given (a delivery receipt, a status callback): appended
 * to the reply's session when the report arrives on the connection's webhook. One event per
 * (connection, platform message id, platform status): a repeated report appends nothing.
 */
export const channelDeliveryReportedSchema = z.object({
  sessionId: idSchema,
  projectId: idSchema,
  connectionId: idSchema,
  channelType: z.string().min(1).max(128),
  /** The provider variant, when the channel type has several (`vonage`). */
  provider: z.string().min(1).max(64).optional(),
  /** The reply (AgentReplied.messageId) the reported message carried. */
  messageId: idSchema,
  /** The platform's id of the reported message (one part of the reply when it went in parts). */
  externalMessageId: z.string().min(1).max(512),
  /** The platform's own status word. */
  status: z.string().min(1).max(64),
  /** The status in Parley's terms. */
  outcome: z.enum(['pending', 'delivered', 'read', 'failed', 'unknown']),
  /** The platform's error code, when it gives one. */
  errorCode: z.string().min(1).max(64).optional(),
  /** When the platform says the status was reached. */
  reportedAt: timestampSchema,
});
export type ChannelDeliveryReportedData = z.infer<typeof channelDeliveryReportedSchema>;
export const channelDeliveryReported = defineEvent({
  type: 'ChannelDeliveryReported',
  schemaVersion: 1,
  schema: channelDeliveryReportedSchema,
});
