import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import { countSchema, idSchema, timestampSchema } from './common.js';

/**
 * Telephony call lifecycle (spec 001 §3 item 2, §6): each status the provider's status callback
 * reports is one event, in the call's session stream when the call maps to a session, else in
 * `voicecall-<callId>`. The spec names initiated, ringing, in-progress, completed and failed; the
 * provider's other values are recorded as given (queued before initiated; busy, no-answer and
 * canceled end a call that never connected). No phone number is recorded.
 */
export const VOICE_CALL_STATUSES = [
  'queued',
  'initiated',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'canceled',
  'failed',
] as const;
export type VoiceCallStatus = (typeof VOICE_CALL_STATUSES)[number];
/** Statuses after which the call is over (its concurrency slot is released). */
export const VOICE_CALL_FINAL_STATUSES: readonly VoiceCallStatus[] = [
  'completed',
  'busy',
  'no-answer',
  'canceled',
  'failed',
];

export const voiceCallStatusChangedSchema = z.object({
  /** The provider's call id (CallSid). */
  callId: idSchema,
  projectId: idSchema,
  tenantId: idSchema.optional(),
  /** The provider account (AccountSid); not a secret. */
  accountId: idSchema,
  /** The Parley session the call belongs to, when known. */
  sessionId: idSchema.optional(),
  status: z.enum(VOICE_CALL_STATUSES),
  /** `inbound`, `outbound-api`, `outbound-dial`, … as the provider says. */
  direction: z.string().min(1).max(64).optional(),
  /** CallDuration of a finished call, seconds. */
  durationSeconds: countSchema.optional(),
  /** The provider's order of the callbacks of one call (SequenceNumber). */
  sequenceNumber: countSchema.optional(),
  /** The provider's error code of a failed call. */
  errorCode: z.string().min(1).max(32).optional(),
  /** When the provider says the status changed (its Timestamp), when it gives one. */
  occurredAt: timestampSchema.optional(),
  /** When Parley received the callback. */
  reportedAt: timestampSchema,
});
export type VoiceCallStatusChangedData = z.infer<typeof voiceCallStatusChangedSchema>;
export const voiceCallStatusChanged = defineEvent({
  type: 'VoiceCallStatusChanged',
  schemaVersion: 1,
  schema: voiceCallStatusChangedSchema,
});
