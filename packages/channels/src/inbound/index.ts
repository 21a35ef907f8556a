/**
 * The inbound pipeline: webhook acceptance, channel jobs, turns and sending: what the rest of
 * @parley/channels and its users import from here.
 */
export { deliveryEventId } from './ids.js';
export {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  CHANNEL_SEND_QUEUE,
  type ChannelQueueOptions,
  createChannelJobQueue,
  createChannelJobWakeups,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  type InboundJobData,
  notifyChannelJob,
  type SendJobData,
} from './jobs.js';
export { channelInboundMigrations } from './migrations.js';
export { joinParts, PARTS_METADATA_KEY } from './parts/joinParts.js';
export { DEFAULT_PART_TIMEOUT_SECONDS, releaseExpiredParts } from './parts/partStore.js';
export {
  createInboundPipeline,
  type InboundAdapter,
  type InboundConnectionLookup,
  type InboundPipeline,
  InboundQueueUnavailableError,
  type WebhookOutcome,
  type WebhookRefusal,
  type WebhookRoute,
} from './pipeline.js';
export {
  type ChannelTurnRunner,
  type InboundWorkerDeps,
  processInboundJob,
  processSendJob,
  RetryableSendError,
} from './processor.js';
export { REPLACED_TEXT_METADATA_KEY } from './storableMessages.js';
export { workChannelQueues } from './work.js';
