export type { ChannelsHttpAsyncOptions, ChannelsWorkOptions } from './channels/channelsWork.js';
export {
  createProjectionRebuildWork,
  type ProjectionRebuildWork,
  type ProjectionRebuildWorkOptions,
} from './projections/rebuildWork.js';
export { MEDIA_FETCH_CONSUMER } from './recordings/fetchJobEnqueuer.js';
export { createJobQueue, PG_BOSS_SCHEMA } from './recordings/jobQueue.js';
export {
  DEFAULT_MEDIA_FETCH_OPTIONS,
  MEDIA_FETCH_QUEUE,
  type MediaFetchJobData,
  type MediaFetchOptions,
} from './recordings/mediaFetchJob.js';
export type { RecordingsWorkOptions } from './recordings/recordingsWork.js';
export { type RetentionSweepResult, runRetentionSweep } from './recordings/retentionSweep.js';
export { type LifecycleSweepResult, runLifecycleSweep } from './sessions/lifecycleSweep.js';
export {
  ABANDON_REASON,
  type LifecycleThresholds,
  type LifecycleTransition,
  lifecycleTransitions,
} from './sessions/lifecycleTransitions.js';
export type { SessionLifecycleOptions } from './sessions/sessionLifecycleWork.js';
export {
  createWorker,
  type DownstreamOptions,
  type EmailIngressOptions,
  type Worker,
  type WorkerOptions,
} from './worker.js';
