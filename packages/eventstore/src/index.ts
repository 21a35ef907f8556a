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
  type Listener,
  type ListenerOptions,
  LogAheadOfClusterError,
  type PostgresEventStore,
  type PostgresEventStoreOptions,
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
  type LogWakeups,
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
