import { describe, expect, it } from 'vitest';
import { type EventType, eventCatalog, eventTypes } from '../catalog.js';
import { eventExamples, llmCallRecordedV1Example } from '../testing/fixtures.js';
import { llmCallRecordedV1Schema } from './llm.js';

const schemaOf = (type: EventType) => eventCatalog.definitions[type].schema;
const example = (type: EventType): Record<string, unknown> => structuredClone(eventExamples[type]);
const accepts = (type: EventType, data: unknown) => schemaOf(type).safeParse(data).success;

/** The fields each event cannot do without; every other field of the example is optional. */
const requiredFields: { [T in EventType]: readonly string[] } = {
  SessionStarted: [
    'sessionId',
    'projectId',
    'agentName',
    'channel',
    'environment',
    'traceDimensions',
    'startedAt',
  ],
  SessionEnded: ['sessionId', 'projectId', 'status', 'endedAt'],
  SessionIdled: ['sessionId', 'projectId', 'lastActivityAt', 'idledAt'],
  SessionArchived: ['sessionId', 'projectId', 'endedAt', 'archivedAt'],
  MessageReceived: ['sessionId', 'projectId', 'messageId', 'text', 'receivedAt'],
  AgentReplied: ['sessionId', 'projectId', 'messageId', 'agentName', 'text', 'repliedAt'],
  TraceEventRecorded: ['sessionId', 'projectId', 'traceId', 'spanId', 'eventType', 'startedAt'],
  AgentHandedOff: ['sessionId', 'projectId', 'fromAgent', 'toAgent', 'target', 'handedOffAt'],
  ToolCallSuspended: [
    'sessionId',
    'projectId',
    'suspensionId',
    'agentName',
    'toolName',
    'toolCallId',
    'userMessageId',
    'replyMessageId',
    'traceId',
    'spanId',
    'pending',
    'suspendedAt',
    'expiresAt',
  ],
  ToolCallResumed: ['sessionId', 'projectId', 'suspensionId', 'outcome', 'resumedAt'],
  LlmCallRecorded: [
    'callId',
    'projectId',
    'agentName',
    'status',
    'statusCode',
    'usage',
    'latencyMs',
    'timeToFirstTokenMs',
    'streamingUsed',
    'cost',
    'source',
    'sourceSubtype',
    'startedAt',
  ],
  RecordingStarted: ['recordingId', 'sessionId', 'projectId', 'callId', 'startedAt'],
  RecordingFileStored: [
    'recordingId',
    'sessionId',
    'projectId',
    'callId',
    'objectIndex',
    'bytes',
    'storageKey',
    'storedAt',
  ],
  RecordingCompleted: ['recordingId', 'sessionId', 'projectId', 'callId', 'files', 'completedAt'],
  RecordingFailed: ['recordingId', 'sessionId', 'projectId', 'reason', 'failedAt'],
  RecordingMediaDeleted: ['recordingId', 'sessionId', 'projectId', 'objectIndexes', 'cause', 'deletedAt'],
  RecordingDeleted: ['recordingId', 'sessionId', 'projectId', 'principal', 'deletedAt'],
  RecordingRetentionExpired: ['recordingId', 'sessionId', 'projectId', 'expiredAt'],
  RecordingLegalHoldPlaced: ['recordingId', 'sessionId', 'projectId', 'holdId', 'principal', 'placedAt'],
  RecordingLegalHoldLifted: ['recordingId', 'sessionId', 'projectId', 'holdId', 'principal', 'liftedAt'],
  ChannelMessageSent: [
    'sessionId',
    'projectId',
    'connectionId',
    'channelType',
    'messageId',
    'attempts',
    'sentAt',
  ],
  ChannelSendFailed: [
    'sessionId',
    'projectId',
    'connectionId',
    'channelType',
    'messageId',
    'attempts',
    'error',
    'retryable',
    'failedAt',
  ],
  ChannelSendSuppressed: [
    'sessionId',
    'projectId',
    'connectionId',
    'channelType',
    'messageId',
    'attempts',
    'reason',
    'suppressedAt',
  ],
  ChannelDeliveryReported: [
    'sessionId',
    'projectId',
    'connectionId',
    'channelType',
    'messageId',
    'externalMessageId',
    'status',
    'outcome',
    'reportedAt',
  ],
  AuditRecorded: ['projectId', 'action', 'principal', 'resource', 'content', 'at'],
  HttpAsyncMessageAccepted: [
    'messageId',
    'projectId',
    'subscriptionId',
    'route',
    'sessionKey',
    'newConversation',
    'text',
    'acceptedAt',
  ],
  HttpAsyncCallbackQueued: [
    'messageId',
    'projectId',
    'subscriptionId',
    'deliveryId',
    'eventType',
    'payload',
    'test',
    'firstAttempt',
    'maxAttempts',
    'queuedAt',
  ],
  HttpAsyncCallbackAttempted: [
    'messageId',
    'projectId',
    'subscriptionId',
    'deliveryId',
    'eventType',
    'attempt',
    'result',
    'latencyMs',
    'attemptedAt',
  ],
  HttpAsyncCallbackDelivered: [
    'messageId',
    'projectId',
    'subscriptionId',
    'deliveryId',
    'eventType',
    'attempts',
    'status',
    'deliveredAt',
  ],
  HttpAsyncCallbackDeadLettered: [
    'messageId',
    'projectId',
    'subscriptionId',
    'deliveryId',
    'eventType',
    'reason',
    'attempts',
    'deadLetteredAt',
  ],
  VoiceCallStatusChanged: ['callId', 'projectId', 'accountId', 'status', 'reportedAt'],
};

describe.each(eventTypes)('%s', (type) => {
  it('accepts its realistic example unchanged', () => {
    expect(schemaOf(type).parse(example(type))).toEqual(eventExamples[type]);
  });

  it('requires exactly its required fields', () => {
    for (const field of Object.keys(eventExamples[type])) {
      const data = example(type);
      delete data[field];
      expect({ field, accepted: accepts(type, data) }).toEqual({
        field,
        accepted: !requiredFields[type].includes(field),
      });
    }
  });

  it('rejects null for any field (absent means unknown, never null)', () => {
    for (const field of Object.keys(eventExamples[type])) {
      expect({ field, accepted: accepts(type, { ...example(type), [field]: null }) }).toEqual({
        field,
        accepted: false,
      });
    }
  });

  it('rejects what is not an object, and a bad timestamp', () => {
    for (const wrong of [null, [], 'SessionStarted', 42]) expect(accepts(type, wrong)).toBe(false);
    const data = example(type);
    const timeField = Object.keys(data).find((field) => /(^at|At)$/.test(field));
    expect(timeField).toBeDefined();
    expect(accepts(type, { ...data, [timeField!]: '21/11/2024 09:15' })).toBe(false);
  });

  it('drops fields it does not know (a newer writer may have added optional ones)', () => {
    expect(schemaOf(type).parse({ ...example(type), addedLater: 1 })).toEqual(eventExamples[type]);
  });
});

describe('wrong shapes', () => {
  const rejects = (type: EventType, patch: Record<string, unknown>) =>
    expect(accepts(type, { ...example(type), ...patch })).toBe(false);

  it('session events: unknown environment, state, containment type, trace event type', () => {
    rejects('SessionStarted', { environment: 'development' });
    rejects('SessionStarted', { environment: 'prod' });
    rejects('SessionStarted', { channel: 'x'.repeat(129) });
    rejects('SessionStarted', { callerNumberKey: '1'.repeat(129) });
    rejects('SessionStarted', { traceDimensions: { region: 7 } });
    rejects('SessionStarted', { sessionId: '' });
    rejects('SessionEnded', { status: 'active' });
    rejects('SessionEnded', { containmentType: 'resolved' });
    rejects('SessionIdled', { idledAt: '2024-11-21 09:21' });
    rejects('SessionArchived', { archivedAt: 1732180787530 });
    rejects('TraceEventRecorded', { eventType: 'llm' });
    rejects('TraceEventRecorded', { durationMs: -1 });
    rejects('TraceEventRecorded', { durationMs: 1.5 });
  });

  it('opaque structured output must be a JSON object', () => {
    rejects('AgentReplied', { structuredOutput: [{ type: 'ACTION_SET' }] });
    rejects('AgentReplied', { structuredOutput: { at: new Date() } });
    rejects('MessageReceived', { channelMetadata: { n: Number.NaN } });
    expect(
      accepts('AgentReplied', { ...example('AgentReplied'), structuredOutput: { a: [null, { b: 1 }] } }),
    ).toBe(true);
  });

  it('refuses a "__proto__" key at any depth rather than silently dropping its value', () => {
    const proto = JSON.parse('{"__proto__": "x"}');
    const nested = JSON.parse('{"a": [{"__proto__": {"b": 1}}]}');
    rejects('SessionStarted', { traceDimensions: proto });
    rejects('AgentReplied', { structuredOutput: proto });
    rejects('TraceEventRecorded', { attributes: nested });
    rejects('LlmCallRecorded', { payload: { prompt: nested, response: 'ok' } });
    expect(accepts('SessionStarted', { ...example('SessionStarted'), traceDimensions: { proto: 'x' } })).toBe(
      true,
    );
  });

  it('LLM calls: flat v1 counts, negative or fractional tokens, bad status', () => {
    const { usage: _usage, latencyMs: _latency, ...rest } = example('LlmCallRecorded');
    expect(accepts('LlmCallRecorded', { ...rest, ...llmCallRecordedV1Example })).toBe(false);
    const usage = (patch: Record<string, unknown>) => ({
      usage: { ...eventExamples.LlmCallRecorded.usage, ...patch },
    });
    rejects('LlmCallRecorded', usage({ inputTokens: -1 }));
    rejects('LlmCallRecorded', usage({ cachedTokens: 1.5 }));
    rejects('LlmCallRecorded', usage({ reasoningTokens: undefined }));
    rejects('LlmCallRecorded', { status: 'error' });
    rejects('LlmCallRecorded', { statusCode: 600 });
    rejects('LlmCallRecorded', { cost: -0.01 });
    rejects('LlmCallRecorded', { latencyMs: 12.5 });
    rejects('LlmCallRecorded', { payload: { prompt: 'hi' } });
    expect(
      accepts('LlmCallRecorded', { ...example('LlmCallRecorded'), payload: { prompt: [], response: null } }),
    ).toBe(true);
  });

  it('LLM call v1 schema accepts the v1 example and not a v2 event', () => {
    expect(llmCallRecordedV1Schema.safeParse(llmCallRecordedV1Example).success).toBe(true);
    expect(llmCallRecordedV1Schema.safeParse(eventExamples.LlmCallRecorded).success).toBe(false);
  });

  it('recordings: reasons that are not failures, bad channel, negative sizes', () => {
    for (const reason of ['deleted', 'retention_expired', 'url_signing_failed', 'call_in_progress', 'nope']) {
      rejects('RecordingFailed', { reason });
    }
    rejects('RecordingFileStored', { channel: 'both' });
    rejects('RecordingFileStored', { bytes: -1 });
    rejects('RecordingFileStored', { objectIndex: -1 });
    rejects('RecordingFileStored', { durationSeconds: -2 });
    rejects('RecordingDeleted', { principal: { kind: 'robot', id: 'x' } });
    rejects('RecordingLegalHoldPlaced', { principal: { kind: 'user' } });
  });

  it('audit records: action format, and the content of the actions the spec names', () => {
    rejects('AuditRecorded', { action: 'RecordingUrlsIssued' });
    rejects('AuditRecorded', { action: 'recording:' });
    rejects('AuditRecorded', { content: { files: [], disposition: 'attachment' } });
    rejects('AuditRecorded', {
      content: { files: [{ recordingId: 'r', objectIndex: 0, urlKind: 'presigned' }], disposition: 'inline' },
    });
    rejects('AuditRecorded', { action: 'recording:media_content_streamed', content: { recordingId: 'r' } });
    expect(
      accepts('AuditRecorded', {
        ...example('AuditRecorded'),
        action: 'recording:media_content_streamed',
        content: { recordingId: 'r', objectIndex: 2, disposition: 'inline' },
      }),
    ).toBe(true);
    expect(
      accepts('AuditRecorded', {
        ...example('AuditRecorded'),
        action: 'api_key:created',
        content: { keyId: 'k1' },
      }),
    ).toBe(true);
  });

  it('reports where a known action content is wrong', () => {
    const result = schemaOf('AuditRecorded').safeParse({
      ...example('AuditRecorded'),
      content: { files: [{ recordingId: 'r', objectIndex: -1, urlKind: 'signed' }], disposition: 'inline' },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([['content', 'files', 0, 'objectIndex']]);
  });
  it('voice call status: statuses the provider does not send, negative duration', () => {
    rejects('VoiceCallStatusChanged', { status: 'answered' });
    rejects('VoiceCallStatusChanged', { status: 'in_progress' });
    rejects('VoiceCallStatusChanged', { durationSeconds: -1 });
    rejects('VoiceCallStatusChanged', { direction: '' });
  });
});
