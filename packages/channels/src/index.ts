/**
 * @parley/channels: channel adapters (spec 001 "Adapter interface"), the channel manifest (§2.2)
 * and channel connections (§2.3, §4.2) with encrypted credentials; SDK channels (§2.4, §4.6).
 */
export type {
  ActionEvent,
  ChannelAdapter,
  ChannelHttp,
  ConnectionStatus,
  DeliveryOutcome,
  DeliveryReceipt,
  InboundRequest,
  NormalizedMessage,
  OutgoingMessage,
  OutgoingReply,
  ResolvedConnection,
  SendResult,
  SyncChannelAdapter,
  SyncOutcome,
  SyncResponse,
  VerifyTokenLookup,
  WebhookBodyProblem,
} from './adapter.js';
export { isSyncAdapter } from './adapter.js';
export * from './adapters/index.js';
export * from './connections/index.js';
export * from './crypto/index.js';
export * from './httpAsync/index.js';
export * from './inbound/index.js';
export * from './manifest/index.js';
export { channelsMigrations } from './migrations.js';
export * from './resume/index.js';
export * from './sdk/index.js';
export * from './smtp/index.js';
