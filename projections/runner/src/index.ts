export { type ApplyResult, type ApplyTarget, applyBatch } from './applyBatch.js';
export {
  type ColumnSpec,
  type ColumnType,
  type ColumnTypeMap,
  type ColumnValue,
  columnTypes,
} from './columnTypes.js';
export {
  createProjectionRunner,
  type ProjectionRunner,
  type ProjectionRunnerOptions,
} from './createProjectionRunner.js';
export { utcDay, wholeDays } from './days.js';
export { createIndexesSql, physicalTable } from './ddl.js';
export {
  type CompiledColumn,
  type CompiledTable,
  defineProjection,
  type HandlersOf,
  type IndexExpression,
  type IndexSpec,
  type KeyOf,
  type Projection,
  type ProjectionDefinition,
  ProjectionDefinitionError,
  type Row,
  type RowOf,
  type TableHandlers,
  type TableSpec,
} from './defineProjection.js';
export { type EnsureOutcome, ensureProjection, ensureProjections } from './ensureProjection.js';
export { CheckpointConflictError, ProjectionBusyError, ProjectionHandlerError } from './errors.js';
export { projectionRunnerMigrations } from './migrations.js';
export { type ProjectionFreshness, projectionFreshness } from './projectionFreshness.js';
export type { BatchApplied } from './projectionLoop.js';
export {
  DEFAULT_LAG_CAP,
  formatEventsBehind,
  type GenerationStatus,
  type ProjectionStatus,
  projectionStatus,
} from './projectionStatus.js';
export {
  createProjectionsAdmin,
  type ProjectionOverview,
  type ProjectionsAdmin,
} from './projectionsAdmin.js';
export {
  type RebuildOptions,
  type RebuildProgress,
  type RebuildResult,
  rebuildProjection,
} from './rebuildProjection.js';
export {
  activeRebuilds,
  latestRebuilds,
  markRebuildCompleted,
  markRebuildFailed,
  markRebuildQueued,
  markRebuildRunning,
  PROJECTION_REBUILD_QUEUE,
  projectionRebuildJob,
  RebuildInProgressError,
  type RebuildJobData,
  type RebuildJobSender,
  type RebuildProgressRow,
  RebuildQueueMissingError,
  type RebuildRequest,
  type RebuildRequester,
  type RebuildState,
  type RequestRebuildInput,
  readRebuild,
  recordRebuildProgress,
  requestRebuild,
  sendRebuildJob,
} from './rebuildRequests.js';
export type { Failure, GenerationState } from './registry.js';
