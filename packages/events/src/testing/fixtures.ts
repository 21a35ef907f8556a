import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '@parley/eventstore';
import type { EventDataInput, EventType } from '../catalog.js';
import type { LlmCallRecordedData, LlmCallRecordedV1Data } from '../schemas/llm.js';

/** One realistic example of every event type, all about the same voice session. */

const projectId = 'proj_acme_support';
const tenantId = 'ten_acme';
const sessionId = 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0';
const recordingId = 'rec_01JDQ2XK3P8T6W2R9Y4F1G7H5J';
const callId = 'CA9f3c2e1d0b8a7c6d5e4f3a2b1c0d9e8f';
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

export const eventExamples: { readonly [T in EventType]: EventDataInput<T> } = {
  SessionStarted: {
    sessionId,
    projectId,
    tenantId,
    deploymentId: 'dep_2024_11_03',
    agentName: 'billing-assistant',
    channel: 'voice_pipeline',
    channelType: 'pstn',
    environment: 'production',
    channelUserId: 'caller-7731',
    callerNumberKey: '+442071838750',
    traceDimensions: { region: 'emea', plan: 'enterprise' },
    isTest: false,
    startedAt: '2024-11-21T09:15:02.118Z',
  },
  SessionEnded: {
    sessionId,
    projectId,
    status: 'completed',
    containmentType: 'contained_resolved',
    reason: 'user_ended',
    endedAt: '2024-11-21T09:19:47.530Z',
  },
  MessageReceived: {
    sessionId,
    projectId,
    messageId: 'msg_01JDQ2X0A1B2C3D4E5F6G7H8J9',
    externalMessageId: 'utt-0001',
    text: 'Hi, I was charged twice for my November invoice.',
    channelMetadata: { sttConfidence: 0.93, language: 'en-GB' },
    sentAt: '2024-11-21T09:15:06.002Z',
    receivedAt: '2024-11-21T09:15:06.240Z',
  },
  AgentReplied: {
    sessionId,
    projectId,
    messageId: 'msg_01JDQ2X1K2L3M4N5P6Q7R8S9T0',
    inReplyTo: 'msg_01JDQ2X0A1B2C3D4E5F6G7H8J9',
    agentName: 'billing-assistant',
    text: 'Sorry about that. I can see two charges on November 3rd. Shall I refund the duplicate?',
    structuredOutput: {
      type: 'ACTION_SET',
      actions: [
        { kind: 'button', id: 'refund_yes', label: 'Yes, refund it' },
        { kind: 'button', id: 'refund_no', label: 'No, thanks' },
      ],
    },
    usedFallback: false,
    isLlmGenerated: true,
    repliedAt: '2024-11-21T09:15:08.911Z',
  },
  TraceEventRecorded: {
    sessionId,
    projectId,
    traceId,
    spanId: '00f067aa0ba902b7',
    parentSpanId: 'a3ce929d0e0e4736',
    eventType: 'tool_call',
    name: 'lookup_invoices',
    status: 'ok',
    startedAt: '2024-11-21T09:15:07.020Z',
    durationMs: 412,
    attributes: { parameters: { customerId: 'cus_8812', month: '2024-11' } },
  },
  LlmCallRecorded: {
    callId: 'llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
    projectId,
    tenantId,
    sessionId,
    provider: 'openai',
    model: 'gpt-4o-mini-2024-07-18',
    agentName: 'billing-assistant',
    environment: 'production',
    channel: 'voice_pipeline',
    channelType: 'pstn',
    status: 'success',
    statusCode: 200,
    usage: {
      inputTokens: 1843,
      cachedTokens: 1024,
      completionTokens: 61,
      reasoningTokens: 0,
      outputTokens: 61,
      totalTokens: 1904,
    },
    latencyMs: 1289,
    timeToFirstTokenMs: 342,
    streamingUsed: true,
    cost: 0.00031305,
    priceCardVersion: '2024-10-01',
    source: 'runtime',
    sourceSubtype: 'response_generation',
    traceId,
    spanId: 'b7ad6b7169203331',
    startedAt: '2024-11-21T09:15:07.480Z',
  },
  RecordingStarted: {
    recordingId,
    sessionId,
    projectId,
    tenantId,
    callId,
    startedAt: '2024-11-21T09:15:02.500Z',
    retentionExpiresAt: '2025-11-21T09:15:02.500Z',
  },
  RecordingFileStored: {
    recordingId,
    sessionId,
    projectId,
    callId,
    objectIndex: 0,
    fileName: 'RE5a7c1e-caller.wav',
    channel: 'caller',
    recordingType: 'audio',
    contentType: 'audio/wav',
    bytes: 4_587_520,
    recordingStartTime: '2024-11-21T09:15:02.500Z',
    recordingEndTime: '2024-11-21T09:19:46.900Z',
    storageKey: `tenants/${tenantId}/projects/${projectId}/recordings/${recordingId}/0.wav`,
    durationSeconds: 284.4,
    storedAt: '2024-11-21T09:20:31.004Z',
  },
  RecordingFailed: {
    recordingId,
    sessionId,
    projectId,
    callId,
    objectIndex: 1,
    reason: 'storage_write_failed',
    detail: 'S3 PutObject: SlowDown after 5 attempts',
    failedAt: '2024-11-21T09:21:02.713Z',
  },
  RecordingDeleted: {
    recordingId,
    sessionId,
    projectId,
    principal: { kind: 'user', id: 'usr_compliance_officer_1' },
    reason: 'customer erasure request',
    deletedAt: '2024-12-02T14:00:00.000Z',
  },
  RecordingRetentionExpired: {
    recordingId,
    sessionId,
    projectId,
    expiredAt: '2025-11-21T09:15:02.500Z',
  },
  RecordingLegalHoldPlaced: {
    recordingId,
    sessionId,
    projectId,
    holdId: 'hold_case_2024_118',
    principal: { kind: 'user', id: 'usr_legal_4' },
    reason: 'case 2024-118',
    placedAt: '2024-11-25T10:00:00.000Z',
  },
  RecordingLegalHoldLifted: {
    recordingId,
    sessionId,
    projectId,
    holdId: 'hold_case_2024_118',
    principal: { kind: 'user', id: 'usr_legal_4' },
    liftedAt: '2025-02-01T10:00:00.000Z',
  },
  AuditRecorded: {
    projectId,
    tenantId,
    action: 'recording:public_media_urls_issued',
    principal: { kind: 'api_key', id: 'key_01JD8M2Q' },
    resource: { type: 'session', id: sessionId },
    content: {
      files: [
        { recordingId, objectIndex: 0, urlKind: 'proxied' },
        { recordingId, objectIndex: 1, urlKind: 'proxied' },
      ],
      disposition: 'attachment',
    },
    at: '2024-11-21T10:02:11.090Z',
  },
};

/** LlmCallRecorded as version 1 stored it: flat token counts, latencies in seconds. */
export const llmCallRecordedV1Example: LlmCallRecordedV1Data = {
  callId: 'llm_01HZX4C7V2B8N5M3Q9W1E6R4T0',
  projectId,
  tenantId,
  sessionId,
  provider: 'openai',
  model: 'gpt-4o-2024-05-13',
  agentName: 'billing-assistant',
  environment: 'production',
  channel: 'web_chat',
  status: 'success',
  statusCode: 200,
  promptTokens: 912,
  completionTokens: 148,
  totalTokens: 1060,
  latency: 2.4137,
  timeToFirstToken: 0.3815,
  streamingUsed: true,
  cost: 0.00678,
  source: 'runtime',
  sourceSubtype: 'response_generation',
  traceId,
  startedAt: '2024-06-03T16:40:12.004Z',
};

/** What upcasting llmCallRecordedV1Example gives (schemaVersion 2). */
export const llmCallRecordedV1ExampleAsV2: LlmCallRecordedData = {
  callId: 'llm_01HZX4C7V2B8N5M3Q9W1E6R4T0',
  projectId,
  tenantId,
  sessionId,
  provider: 'openai',
  model: 'gpt-4o-2024-05-13',
  agentName: 'billing-assistant',
  environment: 'production',
  channel: 'web_chat',
  status: 'success',
  statusCode: 200,
  usage: {
    inputTokens: 912,
    cachedTokens: 0,
    completionTokens: 148,
    reasoningTokens: 0,
    outputTokens: 148,
    totalTokens: 1060,
  },
  latencyMs: 2414,
  timeToFirstTokenMs: 382,
  streamingUsed: true,
  cost: 0.00678,
  source: 'runtime',
  sourceSubtype: 'response_generation',
  traceId,
  startedAt: '2024-06-03T16:40:12.004Z',
};

/**
 * The v1 example as an event to append directly to a store (toAppend always writes the current
 * version), e.g. to check that a store read with `upcast` returns llmCallRecordedV1ExampleAsV2.
 */
export function llmCallRecordedV1ToAppend(eventId: string = randomUUID()): EventToAppend {
  return {
    eventId,
    type: 'LlmCallRecorded',
    schemaVersion: 1,
    data: { ...llmCallRecordedV1Example },
    metadata: { tenantId, projectId },
  };
}
