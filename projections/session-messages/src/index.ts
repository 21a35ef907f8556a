export {
  createSessionMessageReads,
  listSessionMessages,
  type SessionMessageFilter,
  type SessionMessagePage,
  type SessionMessageReads,
  type SessionMessageRecord,
  toSessionMessageRecord,
} from './sessionMessageReads.js';
export {
  type SessionMessageRow,
  type SessionMessageSessionRow,
  type SessionMessagesEvent,
  sessionMessagesEventOf,
  sessionMessagesProjection,
} from './sessionMessagesProjection.js';
