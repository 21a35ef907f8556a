export { adapterMap, createChannelAdapters } from '../adapters/registry.js';
export { deliveryEventId, derivedUuid, inboundJobId, sendJobId } from './ids.js';
export {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  CHANNEL_SEND_QUEUE,
  type ChannelQueueOptions,
  createChannelJobQueue,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  type InboundJobData,
  notifyChannelJob,
  PG_BOSS_SCHEMA,
  type SendJobData,
} from './jobs.js';
export { channelInboundMigrations } from './migrations.js';
export {
  createInboundPipeline,
  type InboundAdapter,
  type InboundConnectionLookup,
  type InboundPipeline,
  type InboundPipelineDeps,
  InboundQueueUnavailableError,
  SYNC_TURN_TIMEOUT_MS,
  type WebhookCall,
  type WebhookOutcome,
  type WebhookRefusal,
  type WebhookRoute,
} from './pipeline.js';
export {
  type ChannelTurnRequest,
  type ChannelTurnResult,
  type ChannelTurnRunner,
  type DeliveryConnectionLookup,
  type InboundWorkerDeps,
  processInboundJob,
  processSendJob,
  RetryableSendError,
  type SendOutcome,
  sessionChannelOf,
} from './processor.js';
export { receiptEventId, recordOutboundMessages, recordReceipts } from './receipts.js';
export { REPLACED_TEXT_METADATA_KEY, storableMessages } from './storableMessages.js';
export { type ChannelWorkers, workChannelQueues } from './work.js';
