// Other adapters export their factory below, one line each.
export {
  canAppendInTransaction,
  type LogTransaction,
  logTransactionOn,
  withLogTransaction,
  withLogTransactionOn,
} from './logTransaction.js';
export { eventStoreMigrations } from './migrations.js';
export {
  AppendOrderConflictError,
  assertLogNotAhead,
  createPostgresEventStore,
  isOrderConflict,
  type Listener,
  type ListenerOptions,
  LogAheadOfClusterError,
  type PostgresEventStore,
  type PostgresEventStoreOptions,
  type StatementAppend,
  type StreamAppend,
  startListener,
} from './postgres/index.js';
export {
  type AppendOptions,
  type AppendResult,
  comparePositions,
  EventIdConflictError,
  type EventMetadata,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  formatPosition,
  type LogHead,
  type Position,
  parsePosition,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  START,
  type SubscribeAllOptions,
  type Upcast,
  WrongExpectedVersionError,
} from './types.js';
