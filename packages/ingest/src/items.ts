import {
  agentRepliedSchema,
  llmCallRecordedSchema,
  messageReceivedSchema,
  recordingCompletedSchema,
  recordingFailedSchema,
  recordingStartedSchema,
  sessionEndedSchema,
  sessionStartedSchema,
  traceEventRecordedSchema,
} from '@parley/events';
import { z } from 'zod';

/**
 * The wire form of `POST /api/v1/ingest`: a batch of facts other platform
 * components submit. Each item names its kind and carries the event's data
 * without the scope the API key already gives (projectId, tenantId); the
 * server adds those, so a component cannot write into another project.
 */
export const INGEST_ITEM_KINDS = {
  'session.started': 'SessionStarted',
  'session.ended': 'SessionEnded',
  'message.user': 'MessageReceived',
  'message.agent': 'AgentReplied',
  'trace.event': 'TraceEventRecorded',
  'llm.call': 'LlmCallRecorded',
  'recording.started': 'RecordingStarted',
  'recording.completed': 'RecordingCompleted',
  'recording.failed': 'RecordingFailed',
} as const;

export type IngestItemKind = keyof typeof INGEST_ITEM_KINDS;

const unscoped = { projectId: true } as const;

/**
 * The data of each kind: the event schema without its scope. A started
 * session takes the raw caller identity (`callerNumber`); the server turns it
 * into the stored match key (spec 000 §4.2 callerNumber rules).
 */
export const ingestDataSchemas = {
  'session.started': sessionStartedSchema
    .omit({ ...unscoped, tenantId: true, callerNumberKey: true })
    .extend({ callerNumber: z.string().min(1).max(512).optional() }),
  'session.ended': sessionEndedSchema.omit(unscoped),
  'message.user': messageReceivedSchema.omit(unscoped),
  'message.agent': agentRepliedSchema.omit(unscoped),
  'trace.event': traceEventRecordedSchema.omit(unscoped),
  'llm.call': llmCallRecordedSchema.omit({ ...unscoped, tenantId: true }),
  // Recordings (the equivalent of the telephony recording-status callback; docs/recordings.md):
  // retentionExpiresAt is the server's, from the project's recording.retentionDays.
  'recording.started': recordingStartedSchema.omit({ ...unscoped, tenantId: true, retentionExpiresAt: true }),
  'recording.completed': recordingCompletedSchema.omit(unscoped),
  'recording.failed': recordingFailedSchema.omit(unscoped),
} as const;

/** Items per request; larger batches are split by the client. */
export const MAX_INGEST_ITEMS = 1_000;

/** The item envelope; `data` is checked per kind afterwards, so one bad item never rejects the batch. */
export const ingestItemSchema = z.object({
  /** The client's idempotency key: the same id in the same project is the same fact. */
  id: z.string().min(1).max(256),
  type: z.enum(Object.keys(INGEST_ITEM_KINDS) as [IngestItemKind, ...IngestItemKind[]]),
  data: z.record(z.string(), z.unknown()),
});

export const ingestRequestSchema = z.object({
  items: z.array(z.unknown()).min(1).max(MAX_INGEST_ITEMS),
});

export type IngestItem = z.infer<typeof ingestItemSchema>;
