/**
 * HTTP async: submitted turns, webhook subscriptions, signed callbacks and their delivery: what
 * the rest of @parley/channels and its users import from here.
 */

export { cachedSubscriptionStore } from './cachedSubscriptions.js';
export {
  SUSPENSION_SIGNATURE_HEADER,
  signSuspensionCallback,
  verifyCallbackSignature,
  verifySuspensionCallback,
} from './callbackSignature.js';
export { agentResponsePayload, agentStatusPayload } from './callbacks.js';
export {
  type CallbackAllowlist,
  checkCallbackUrl,
  type LookupFn,
  parseCallbackAllowlist,
} from './callbackUrl.js';
export { processHttpAsyncCallbackJob } from './delivery.js';
export { createGuardedFetch, type GuardedFetch } from './guardedFetch.js';
export { createHttpAsyncIntake, type HttpAsyncIntake, type HttpAsyncSubmitInput } from './intake.js';
export {
  DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
  HTTP_ASYNC_CALLBACK_QUEUE,
  HTTP_ASYNC_TURN_QUEUE,
  type HttpAsyncCallbackJobData,
  type HttpAsyncTurnJobData,
  httpAsyncAttemptJobId,
  httpAsyncDeliveryId,
  httpAsyncEventId,
  httpAsyncTurnJobId,
  newCanonicalSessionKey,
  newHttpAsyncMessageId,
} from './jobs.js';
export { httpAsyncMigrations } from './migrations.js';
export {
  agentMediaPayloadSchema,
  agentResponsePayloadSchema,
  agentStatusPayloadSchema,
  callbackPayloadSchemas,
} from './payloads.js';
export { type QueueCallbackDeps, QueueMissingError, queueHttpAsyncCallback } from './queueCallback.js';
export { formatRetrySchedule, parseRetrySchedule } from './schedule.js';
export { MAX_CALLER_SESSION_KEY_LENGTH } from './sessionKey.js';
export {
  SUBSCRIPTION_AUTH_MODES,
  secretRotationSchema,
  subscriptionInputSchema,
  subscriptionPatchSchema,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './subscriptionSchema.js';
export {
  type CheckSubscriptionUrl,
  createSubscriptionStore,
  type SubscriptionStore,
  type SubscriptionWithSecret,
  type WebhookSubscription,
} from './subscriptionStore.js';
export { type HttpAsyncWorkerDeps, processHttpAsyncTurnJob } from './turn.js';
export { ensureHttpAsyncQueues, type HttpAsyncWorkers, workHttpAsyncQueues } from './work.js';
