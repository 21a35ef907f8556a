/**
 * @parley/channels: channel adapters (spec 001 "Adapter interface"), the channel manifest (§2.2),
 * channel connections (§2.3, §4.2) with encrypted credentials, the inbound pipeline, HTTP async,
 * SDK channels (§2.4, §4.6), the SMTP intake and A2A. Every name is listed: what the apps, the
 * projections and the scripts use, nothing more (README.md "Layout").
 */

// A2A: JSON-RPC agent-to-agent endpoint and its task store (src/a2a/README.md)
export {
  A2A_CHANNEL_TYPE,
  A2A_ERRORS,
  A2A_PROTOCOL_VERSION,
  type A2aRpcDeps,
  a2aMigrations,
  answerA2aRpc,
  createA2aTaskStore,
  rpcError,
  rpcFailure,
} from './a2a/index.js';
// The adapter contract (spec 001 "Adapter interface")
export type { ChannelAdapter, InboundRequest } from './adapter.js';

// Platform adapters, one folder each (src/adapters/README.md)
export {
  channelEmailMigrations,
  createChannelAdapters,
  createContactCenterAdapter,
  createEmailThreadStore,
  createVxmlAdapter,
  verifyTelegramSecret,
} from './adapters/index.js';
// Channel connections and their encrypted credentials (§2.3, §4.2)
export {
  type ApiBaseUrlGuard,
  ApiBaseUrlRefusedError,
  apiBaseUrlRefusal,
  type ChannelConnection,
  CONNECTION_CACHE_TTL_MS,
  CONNECTION_ERROR_THRESHOLD,
  type ConnectionStore,
  type ConnectionStoreOptions,
  cachedConnectionStore,
  connectionInputSchema,
  connectionPatchSchema,
  createConnectionStore,
} from './connections/index.js';
export {
  type CredentialKeyring,
  createKeyring,
  credentialsKeyId,
  keyringFromConfig,
} from './crypto/index.js';

// HTTP async: submit, subscriptions, signed callbacks (src/httpAsync/README.md)
export {
  agentMediaPayloadSchema,
  agentResponsePayload,
  agentResponsePayloadSchema,
  agentStatusPayload,
  agentStatusPayloadSchema,
  type CallbackAllowlist,
  type CheckSubscriptionUrl,
  cachedSubscriptionStore,
  callbackPayloadSchemas,
  checkCallbackUrl,
  createGuardedFetch,
  createHttpAsyncIntake,
  createSubscriptionStore,
  DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
  ensureHttpAsyncQueues,
  formatRetrySchedule,
  type GuardedFetch,
  HTTP_ASYNC_CALLBACK_QUEUE,
  HTTP_ASYNC_TURN_QUEUE,
  type HttpAsyncCallbackJobData,
  type HttpAsyncIntake,
  type HttpAsyncSubmitInput,
  type HttpAsyncTurnJobData,
  type HttpAsyncWorkerDeps,
  type HttpAsyncWorkers,
  httpAsyncAttemptJobId,
  httpAsyncDeliveryId,
  httpAsyncEventId,
  httpAsyncMigrations,
  httpAsyncTurnJobId,
  type LookupFn,
  MAX_CALLER_SESSION_KEY_LENGTH,
  newCanonicalSessionKey,
  newHttpAsyncMessageId,
  parseCallbackAllowlist,
  parseRetrySchedule,
  processHttpAsyncCallbackJob,
  processHttpAsyncTurnJob,
  type QueueCallbackDeps,
  QueueMissingError,
  queueHttpAsyncCallback,
  SUBSCRIPTION_AUTH_MODES,
  SUSPENSION_SIGNATURE_HEADER,
  type SubscriptionStore,
  type SubscriptionWithSecret,
  secretRotationSchema,
  signSuspensionCallback,
  subscriptionInputSchema,
  subscriptionPatchSchema,
  verifyCallbackSignature,
  verifySuspensionCallback,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
  type WebhookSubscription,
  workHttpAsyncQueues,
} from './httpAsync/index.js';
// Inbound pipeline: webhook acceptance, channel jobs, sending (src/inbound/README.md)
export {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  CHANNEL_SEND_QUEUE,
  type ChannelQueueOptions,
  type ChannelTurnRunner,
  channelInboundMigrations,
  createChannelJobQueue,
  createChannelJobWakeups,
  createInboundPipeline,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  DEFAULT_PART_TIMEOUT_SECONDS,
  deliveryEventId,
  ensureChannelQueues,
  type InboundAdapter,
  type InboundConnectionLookup,
  type InboundJobData,
  type InboundPipeline,
  InboundQueueUnavailableError,
  type InboundWorkerDeps,
  joinParts,
  notifyChannelJob,
  PARTS_METADATA_KEY,
  processInboundJob,
  processSendJob,
  REPLACED_TEXT_METADATA_KEY,
  RetryableSendError,
  releaseExpiredParts,
  type SendJobData,
  type WebhookOutcome,
  type WebhookRefusal,
  type WebhookRoute,
  workChannelQueues,
} from './inbound/index.js';
// Channel manifest (spec 001 §2.2)
export {
  AUTH_MODES,
  adapterKey,
  CHANNEL_MANIFEST,
  DELIVERY_KINDS,
  INGRESS_KINDS,
  manifestEntry,
} from './manifest/index.js';
export { channelsMigrations } from './migrations.js';
// Tool resume: suspended turns resumed on a channel or HTTP async (src/resume/README.md)
export {
  ensureToolResumeQueue,
  processToolResumeJob,
  sweepExpiredSuspensions,
  TOOL_RESUME_QUEUE,
  type ToolResumeDeps,
  type ToolResumeJobData,
  toolResumeJobId,
} from './resume/index.js';
// SDK channels: widget configuration and share/embed tokens (src/sdk/README.md)
export {
  channelsSdkMigrations,
  createSdkChannelStore,
  createSdkChannelTokens,
  SDK_CHANNEL_TOKEN_KINDS,
  SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS,
  SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS,
  SDK_CHANNEL_TYPES,
  SDK_ENVIRONMENTS,
  type SdkChannel,
  type SdkChannelStore,
  type SdkChannelTokens,
  sdkChannelInputSchema,
  sdkChannelPageSchema,
  sdkChannelPatchSchema,
  widgetConfigSchema,
} from './sdk/index.js';
// SMTP intake of the email channel (src/smtp/README.md)
export { createEmailReceiver, createEmailSmtpServer, type EmailSmtpServer } from './smtp/index.js';
export type { ForwardedTurn, MessagePart, NormalizedMessage, ResolvedConnection } from './types.js';
