export {
  deliverResumedReply,
  type ResumeDeliveryDeps,
  type ResumedTurn,
} from './resumeDelivery.js';
export {
  ensureToolResumeQueue,
  TOOL_RESUME_QUEUE,
  type ToolResumeJobData,
  toolResumeJobId,
  toolResumeJobSchema,
} from './resumeJobs.js';
export { channelOrigin, httpAsyncOrigin, type ResumeOrigin, resumeOriginSchema } from './resumeOrigin.js';
export {
  processToolResumeJob,
  type ResumedTurnResult,
  sweepExpiredSuspensions,
  type ToolResumeDeps,
} from './toolResumeJob.js';
