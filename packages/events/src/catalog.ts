import type { EventInput, KnownEvent, ParsedEvent } from './createCatalog.js';
import { createCatalog } from './createCatalog.js';
import { agentHandedOff, toolCallResumed, toolCallSuspended } from './schemas/agent.js';
import { auditRecorded } from './schemas/audit.js';
import {
  channelDeliveryReported,
  channelMessageSent,
  channelSendFailed,
  channelSendSuppressed,
} from './schemas/channel.js';
import {
  httpAsyncCallbackAttempted,
  httpAsyncCallbackDeadLettered,
  httpAsyncCallbackDelivered,
  httpAsyncCallbackQueued,
  httpAsyncMessageAccepted,
} from './schemas/httpAsync.js';
import { llmCallRecorded } from './schemas/llm.js';
import {
  recordingCompleted,
  recordingDeleted,
  recordingFailed,
  recordingFileStored,
  recordingLegalHoldLifted,
  recordingLegalHoldPlaced,
  recordingMediaDeleted,
  recordingRetentionExpired,
  recordingStarted,
} from './schemas/recording.js';
import {
  agentReplied,
  messageReceived,
  sessionArchived,
  sessionEnded,
  sessionIdled,
  sessionStarted,
  traceEventRecorded,
} from './schemas/session.js';
import { voiceCallStatusChanged } from './schemas/voice.js';

/** Every Parley event type. Adding one: define it in ./schemas/<stream kind>.ts, list it here. */
export const eventCatalog = createCatalog([
  sessionStarted,
  sessionEnded,
  sessionIdled,
  sessionArchived,
  messageReceived,
  agentReplied,
  traceEventRecorded,
  agentHandedOff,
  toolCallSuspended,
  toolCallResumed,
  llmCallRecorded,
  recordingStarted,
  recordingCompleted,
  recordingFileStored,
  recordingFailed,
  recordingDeleted,
  recordingRetentionExpired,
  recordingMediaDeleted,
  recordingLegalHoldPlaced,
  recordingLegalHoldLifted,
  auditRecorded,
  channelMessageSent,
  channelSendFailed,
  channelSendSuppressed,
  channelDeliveryReported,
  httpAsyncMessageAccepted,
  httpAsyncCallbackQueued,
  httpAsyncCallbackAttempted,
  httpAsyncCallbackDelivered,
  httpAsyncCallbackDeadLettered,
  voiceCallStatusChanged,
]);

type Definition = (typeof eventCatalog.definitions)[keyof typeof eventCatalog.definitions];

export type EventType = Definition['type'];
/** A known Parley event as parseEvent returns it; switch on `type` to narrow `data`. */
export type ParleyEvent = KnownEvent<Definition>;
export type ParsedParleyEvent = ParsedEvent<Definition>;
/** The data of an event type, current version, as parseEvent returns it. */
export type EventData<T extends EventType> = Extract<ParleyEvent, { type: T }>['data'];
/** What toAppend accepts for an event type. */
export type EventDataInput<T extends EventType> = EventInput<Definition, T>;

export const eventTypes = eventCatalog.eventTypes;
export const isEventType = eventCatalog.isKnownType;
export const upcast = eventCatalog.upcast;
export const parseEvent = eventCatalog.parseEvent;
export const toAppend = eventCatalog.toAppend;
export const toAppendUnknown = eventCatalog.toAppendUnknown;
