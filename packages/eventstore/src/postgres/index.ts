export { AppendOrderConflictError, isOrderConflict, type StatementAppend } from './append.js';
export type { StreamAppend } from './appendMany.js';
export { assertLogNotAhead, LogAheadOfClusterError } from './assertLogNotAhead.js';
export {
  createPostgresEventStore,
  type PostgresEventStore,
  type PostgresEventStoreOptions,
} from './createPostgresEventStore.js';
export { type Listener, type ListenerOptions, startListener } from './listener.js';
