/**
 * Tool resume: suspended turns resumed and their replies delivered: what the rest of
 * @parley/channels and its users import from here.
 */
export {
  ensureToolResumeQueue,
  TOOL_RESUME_QUEUE,
  type ToolResumeJobData,
  toolResumeJobId,
} from './resumeJobs.js';
export { processToolResumeJob, sweepExpiredSuspensions, type ToolResumeDeps } from './toolResumeJob.js';
