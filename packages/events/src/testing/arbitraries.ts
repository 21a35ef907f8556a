import fc from 'fast-check';
import type { z } from 'zod';
import type { EventDataInput, EventType } from '../catalog.js';
import { eventTypes } from '../catalog.js';
import { AUDIT_ACTIONS, DISPOSITIONS, URL_KINDS } from '../schemas/audit.js';
import {
  CONTAINMENT_TYPES,
  ENVIRONMENTS,
  PRINCIPAL_KINDS,
  SESSION_END_STATES,
  TRACE_EVENT_TYPES,
} from '../schemas/common.js';
import {
  HTTP_ASYNC_ATTEMPT_RESULTS,
  HTTP_ASYNC_DEAD_LETTER_REASONS,
  HTTP_ASYNC_EVENT_TYPES,
  HTTP_ASYNC_ROUTES,
} from '../schemas/httpAsync.js';
import { LLM_CALL_STATUSES, type LlmCallRecordedV1Data } from '../schemas/llm.js';
import { RECORDING_CHANNELS, RECORDING_FAILURE_REASONS } from '../schemas/recording.js';
import { VOICE_CALL_STATUSES } from '../schemas/voice.js';

/**
 * fast-check arbitraries of valid event data, one per event type, for property tests here and in
 * projections (a rebuild equals incremental projection, a replayed event changes nothing).
 * Generated data survives a JSON round trip unchanged, as it must to survive the log.
 */

const id = fc.string({ minLength: 1, maxLength: 24 });
/** Any printable Unicode; no control characters (PostgreSQL jsonb refuses \u0000). */
const shortText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
const text = fc.string({ unit: 'grapheme', maxLength: 200 });
const timestamp = fc
  .date({
    min: new Date('2000-01-01T00:00:00.000Z'),
    max: new Date('2099-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  })
  .map((date) => date.toISOString());
const count = fc.nat({ max: 10_000_000 });
const durationMs = fc.nat({ max: 86_400_000 });
const amount = fc.double({ min: 0, max: 1_000_000, noNaN: true });
type Json = z.infer<ReturnType<typeof z.json>>;
/**
 * JSON values as the log gives them back (fast-check's can hold -0, which JSON makes 0), without
 * `__proto__` keys, which validation drops.
 */
const json = (maxDepth: number) =>
  fc
    .jsonValue({ maxDepth })
    .map((value) => JSON.stringify(value))
    .filter((serialized) => !serialized.includes('"__proto__"'))
    .map((serialized) => JSON.parse(serialized) as Json);
const jsonObject = fc
  .dictionary(fc.string({ maxLength: 12 }), json(3), { maxKeys: 5, noNullPrototype: true })
  .filter((value) => !Object.hasOwn(value, '__proto__'));
const principal = fc.record({ kind: fc.constantFrom(...PRINCIPAL_KINDS), id });
const environment = fc.constantFrom(...ENVIRONMENTS);
const channel = fc.string({ minLength: 1, maxLength: 128 });

const sessionScope = { sessionId: id, projectId: id };
const httpAsyncDelivery = {
  messageId: id,
  projectId: id,
  subscriptionId: id,
  deliveryId: id,
  eventType: fc.constantFrom(...HTTP_ASYNC_EVENT_TYPES),
};
const httpAsyncDeliveryKeys = Object.keys(httpAsyncDelivery) as (keyof typeof httpAsyncDelivery)[];

const actionId = fc.string({ minLength: 1, maxLength: 100 });
const actionLabel = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 });
const actionSetElement = fc.oneof(
  fc.record(
    {
      type: fc.constant('button' as const),
      id: actionId,
      label: actionLabel,
      value: actionId,
      style: fc.constantFrom('primary' as const, 'secondary' as const, 'danger' as const),
    },
    { requiredKeys: ['type', 'id', 'label'] },
  ),
  fc.record(
    {
      type: fc.constant('select' as const),
      id: actionId,
      label: actionLabel,
      placeholder: actionLabel,
      options: fc.array(fc.record({ label: actionLabel, value: actionId }), { minLength: 1, maxLength: 5 }),
    },
    { requiredKeys: ['type', 'id', 'label', 'options'] },
  ),
  fc.record(
    {
      type: fc.constant('text_input' as const),
      id: actionId,
      label: actionLabel,
      placeholder: actionLabel,
      multiline: fc.boolean(),
      maxLength: fc.integer({ min: 1, max: 10_000 }),
    },
    { requiredKeys: ['type', 'id', 'label'] },
  ),
);
const actionSet = fc.record(
  {
    prompt: fc.string({ unit: 'grapheme', maxLength: 80 }),
    elements: fc.array(actionSetElement, { minLength: 1, maxLength: 4 }),
  },
  { requiredKeys: ['elements'] },
);
const recordingScope = { recordingId: id, sessionId: id, projectId: id };

function llmCallCommon() {
  return {
    callId: id,
    projectId: id,
    tenantId: id,
    sessionId: id,
    provider: shortText,
    model: shortText,
    agentName: shortText,
    environment,
    channel,
    channelType: channel,
    status: fc.constantFrom(...LLM_CALL_STATUSES),
    statusCode: fc.integer({ min: 0, max: 599 }),
    streamingUsed: fc.boolean(),
    cost: amount,
    priceCardVersion: shortText,
    source: shortText,
    sourceSubtype: shortText,
    sourceId: shortText,
    traceId: id,
    spanId: id,
    startedAt: timestamp,
    payload: fc.record({ prompt: json(2), response: json(2) }),
  };
}
const llmCallRequiredKeys = [
  'callId',
  'projectId',
  'agentName',
  'status',
  'statusCode',
  'streamingUsed',
  'cost',
  'source',
  'sourceSubtype',
  'startedAt',
] as const;

type DataArbitraries = { readonly [T in EventType]: fc.Arbitrary<EventDataInput<T>> };

const knownAuditContent = fc.oneof(
  fc.record({
    action: fc.constant('recording:public_media_urls_issued' as const),
    content: fc.record({
      files: fc.array(
        fc.record({
          recordingId: id,
          objectIndex: fc.nat({ max: 20 }),
          urlKind: fc.constantFrom(...URL_KINDS),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      disposition: fc.constantFrom(...DISPOSITIONS),
    }),
  }),
  fc.record({
    action: fc.constant('recording:media_content_streamed' as const),
    content: fc.record(
      { recordingId: id, objectIndex: fc.nat({ max: 20 }), disposition: fc.constantFrom(...DISPOSITIONS) },
      { requiredKeys: ['recordingId', 'objectIndex'] },
    ),
  }),
);
const otherAuditContent = fc.record({
  action: fc
    .tuple(fc.stringMatching(/^[a-z][a-z_]{0,15}$/), fc.stringMatching(/^[a-z][a-z_]{0,23}$/))
    .map(([resource, verb]) => `${resource}:${verb}`)
    .filter((action) => !(AUDIT_ACTIONS as readonly string[]).includes(action)),
  content: jsonObject,
});

export const eventDataArbitraries: DataArbitraries = {
  SessionStarted: fc.record(
    {
      ...sessionScope,
      tenantId: id,
      deploymentId: id,
      agentName: shortText,
      channel,
      channelType: channel,
      environment,
      channelUserId: shortText,
      callerNumberKey: fc.string({ minLength: 1, maxLength: 128 }),
      externalSessionKey: shortText,
      traceDimensions: fc
        .dictionary(shortText, fc.string({ maxLength: 20 }), { maxKeys: 4, noNullPrototype: true })
        .filter((value) => !Object.hasOwn(value, '__proto__')),
      isTest: fc.boolean(),
      startedAt: timestamp,
    },
    {
      requiredKeys: [
        'sessionId',
        'projectId',
        'agentName',
        'channel',
        'environment',
        'traceDimensions',
        'startedAt',
      ],
    },
  ),
  SessionEnded: fc.record(
    {
      ...sessionScope,
      status: fc.constantFrom(...SESSION_END_STATES),
      containmentType: fc.constantFrom(...CONTAINMENT_TYPES),
      reason: fc.string({ minLength: 1, maxLength: 128 }),
      endedAt: timestamp,
    },
    { requiredKeys: ['sessionId', 'projectId', 'status', 'endedAt'] },
  ),
  SessionIdled: fc.record({ ...sessionScope, lastActivityAt: timestamp, idledAt: timestamp }),
  SessionArchived: fc.record({ ...sessionScope, endedAt: timestamp, archivedAt: timestamp }),
  MessageReceived: fc.record(
    {
      ...sessionScope,
      messageId: id,
      externalMessageId: id,
      text,
      actionEvent: jsonObject,
      channelMetadata: jsonObject,
      sentAt: timestamp,
      receivedAt: timestamp,
    },
    { requiredKeys: ['sessionId', 'projectId', 'messageId', 'text', 'receivedAt'] },
  ),
  AgentReplied: fc.record(
    {
      ...sessionScope,
      messageId: id,
      inReplyTo: id,
      agentName: shortText,
      text,
      structuredOutput: jsonObject,
      actionSet,
      media: fc.array(
        fc.record(
          {
            url: fc.webUrl({ validSchemes: ['https'] }).filter((u) => u.length <= 2048),
            mimeType: fc.constantFrom('image/png', 'application/pdf', 'audio/mpeg'),
            name: shortText,
            caption: shortText,
          },
          { requiredKeys: ['url', 'mimeType'] },
        ),
        { minLength: 1, maxLength: 3 },
      ),
      usedFallback: fc.boolean(),
      isLlmGenerated: fc.boolean(),
      repliedAt: timestamp,
    },
    { requiredKeys: ['sessionId', 'projectId', 'messageId', 'agentName', 'text', 'repliedAt'] },
  ),
  AgentHandedOff: fc.record(
    {
      ...sessionScope,
      fromAgent: fc.string({ minLength: 1, maxLength: 128 }),
      toAgent: fc.string({ minLength: 1, maxLength: 128 }),
      reason: fc.string({ minLength: 1, maxLength: 500 }),
      target: fc.constantFrom('local' as const, 'remote' as const),
      remoteUrl: fc.webUrl().filter((u) => u.length <= 2048),
      traceId: id,
      spanId: id,
      handedOffAt: timestamp,
    },
    { requiredKeys: ['sessionId', 'projectId', 'fromAgent', 'toAgent', 'target', 'handedOffAt'] },
  ),
  ToolCallSuspended: fc.record({
    ...sessionScope,
    suspensionId: id,
    agentName: fc.string({ minLength: 1, maxLength: 128 }),
    toolName: shortText,
    toolCallId: id,
    userMessageId: id,
    replyMessageId: id,
    traceId: id,
    spanId: id,
    pending: fc.record({
      assistantText: text,
      toolCalls: fc.array(fc.record({ id, name: shortText, arguments: text }), {
        minLength: 1,
        maxLength: 3,
      }),
      results: fc.array(fc.record({ toolCallId: id, content: text }), { maxLength: 3 }),
      llmCalls: fc.nat({ max: 25 }),
    }),
    suspendedAt: timestamp,
    expiresAt: timestamp,
  }),
  ToolCallResumed: fc.record({
    ...sessionScope,
    suspensionId: id,
    outcome: fc.constantFrom('completed' as const, 'timed_out' as const),
    resumedAt: timestamp,
  }),
  TraceEventRecorded: fc.record(
    {
      ...sessionScope,
      traceId: id,
      spanId: id,
      parentSpanId: id,
      eventType: fc.constantFrom(...TRACE_EVENT_TYPES),
      name: shortText,
      status: fc.constantFrom('ok' as const, 'error' as const, 'blocked' as const),
      decisionKind: shortText,
      llmCallId: id,
      startedAt: timestamp,
      durationMs,
      attributes: jsonObject,
    },
    { requiredKeys: ['sessionId', 'projectId', 'traceId', 'spanId', 'eventType', 'startedAt'] },
  ),
  LlmCallRecorded: fc.record(
    {
      ...llmCallCommon(),
      usage: fc.record({
        inputTokens: count,
        cachedTokens: count,
        completionTokens: count,
        reasoningTokens: count,
        outputTokens: count,
        totalTokens: count,
      }),
      latencyMs: durationMs,
      timeToFirstTokenMs: durationMs,
    },
    { requiredKeys: [...llmCallRequiredKeys, 'usage', 'latencyMs', 'timeToFirstTokenMs'] },
  ),
  RecordingStarted: fc.record(
    { ...recordingScope, tenantId: id, callId: id, startedAt: timestamp, retentionExpiresAt: timestamp },
    { requiredKeys: ['recordingId', 'sessionId', 'projectId', 'callId', 'startedAt'] },
  ),
  RecordingCompleted: fc.record(
    {
      ...recordingScope,
      callId: id,
      durationSeconds: amount,
      files: fc.array(
        fc.record(
          {
            objectIndex: fc.nat({ max: 20 }),
            fileName: shortText,
            channel: fc.constantFrom(...RECORDING_CHANNELS),
            recordingType: shortText,
            contentType: shortText,
            recordingStartTime: timestamp,
            recordingEndTime: timestamp,
            source: fc.record({
              kind: fc.constantFrom('recording_server' as const, 'external' as const),
              url: fc.webUrl({ validSchemes: ['https'] }),
            }),
          },
          { requiredKeys: ['objectIndex', 'source'] },
        ),
        { minLength: 1, maxLength: 4 },
      ),
      completedAt: timestamp,
    },
    { requiredKeys: ['recordingId', 'sessionId', 'projectId', 'callId', 'files', 'completedAt'] },
  ),
  RecordingFileStored: fc.record(
    {
      ...recordingScope,
      callId: id,
      objectIndex: fc.nat({ max: 20 }),
      fileName: shortText,
      channel: fc.constantFrom(...RECORDING_CHANNELS),
      recordingType: shortText,
      contentType: shortText,
      bytes: fc.nat(),
      recordingStartTime: timestamp,
      recordingEndTime: timestamp,
      storageKey: shortText,
      durationSeconds: amount,
      storedAt: timestamp,
    },
    {
      requiredKeys: [
        'recordingId',
        'sessionId',
        'projectId',
        'callId',
        'objectIndex',
        'bytes',
        'storageKey',
        'storedAt',
      ],
    },
  ),
  RecordingFailed: fc.record(
    {
      ...recordingScope,
      callId: id,
      objectIndex: fc.nat({ max: 20 }),
      reason: fc.constantFrom(...RECORDING_FAILURE_REASONS),
      detail: shortText,
      failedAt: timestamp,
    },
    { requiredKeys: ['recordingId', 'sessionId', 'projectId', 'reason', 'failedAt'] },
  ),
  RecordingDeleted: fc.record(
    { ...recordingScope, principal, reason: shortText, deletedAt: timestamp },
    { requiredKeys: ['recordingId', 'sessionId', 'projectId', 'principal', 'deletedAt'] },
  ),
  RecordingRetentionExpired: fc.record({ ...recordingScope, expiredAt: timestamp }),
  RecordingMediaDeleted: fc.record({
    ...recordingScope,
    objectIndexes: fc.array(fc.nat({ max: 20 }), { maxLength: 4 }),
    cause: fc.constantFrom('retention_expired' as const, 'deleted' as const),
    deletedAt: timestamp,
  }),
  RecordingLegalHoldPlaced: fc.record(
    { ...recordingScope, holdId: id, principal, reason: shortText, placedAt: timestamp },
    { requiredKeys: ['recordingId', 'sessionId', 'projectId', 'holdId', 'principal', 'placedAt'] },
  ),
  RecordingLegalHoldLifted: fc.record(
    { ...recordingScope, holdId: id, principal, reason: shortText, liftedAt: timestamp },
    { requiredKeys: ['recordingId', 'sessionId', 'projectId', 'holdId', 'principal', 'liftedAt'] },
  ),
  ChannelMessageSent: fc.record(
    {
      ...sessionScope,
      connectionId: id,
      channelType: channel,
      messageId: id,
      attempts: fc.integer({ min: 1, max: 100 }),
      externalMessageId: id,
      sentAt: timestamp,
    },
    {
      requiredKeys: [
        'sessionId',
        'projectId',
        'connectionId',
        'channelType',
        'messageId',
        'attempts',
        'sentAt',
      ],
    },
  ),
  ChannelSendFailed: fc.record(
    {
      ...sessionScope,
      connectionId: id,
      channelType: channel,
      messageId: id,
      attempts: fc.integer({ min: 1, max: 100 }),
      error: shortText,
      status: fc.integer({ min: 100, max: 599 }),
      retryable: fc.boolean(),
      failedAt: timestamp,
    },
    {
      requiredKeys: [
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
    },
  ),
  ChannelSendSuppressed: fc.record({
    ...sessionScope,
    connectionId: id,
    channelType: channel,
    messageId: id,
    attempts: fc.integer({ min: 1, max: 100 }),
    reason: shortText,
    suppressedAt: timestamp,
  }),
  ChannelDeliveryReported: fc.record(
    {
      ...sessionScope,
      connectionId: id,
      channelType: channel,
      provider: fc.constantFrom('vonage', 'twilio'),
      messageId: id,
      externalMessageId: id,
      status: fc.constantFrom('submitted', 'delivered', 'rejected', 'buffered', 'read'),
      outcome: fc.constantFrom('pending', 'delivered', 'read', 'failed', 'unknown'),
      errorCode: fc.constantFrom('1000', '2', 'c11'),
      reportedAt: timestamp,
    },
    {
      requiredKeys: [
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
    },
  ),
  HttpAsyncMessageAccepted: fc.record(
    {
      messageId: id,
      projectId: id,
      subscriptionId: id,
      route: fc.constantFrom(...HTTP_ASYNC_ROUTES),
      sessionKey: id,
      newConversation: fc.boolean(),
      text,
      metadata: jsonObject,
      acceptedAt: timestamp,
    },
    {
      requiredKeys: [
        'messageId',
        'projectId',
        'subscriptionId',
        'route',
        'sessionKey',
        'newConversation',
        'text',
        'acceptedAt',
      ],
    },
  ),
  HttpAsyncCallbackQueued: fc.record(
    {
      ...httpAsyncDelivery,
      sessionId: id,
      payload: jsonObject,
      test: fc.boolean(),
      firstAttempt: fc.integer({ min: 1, max: 1000 }),
      maxAttempts: fc.integer({ min: 1, max: 100 }),
      queuedAt: timestamp,
    },
    {
      requiredKeys: [...httpAsyncDeliveryKeys, 'payload', 'test', 'firstAttempt', 'maxAttempts', 'queuedAt'],
    },
  ),
  HttpAsyncCallbackAttempted: fc.record(
    {
      ...httpAsyncDelivery,
      attempt: fc.integer({ min: 1, max: 1000 }),
      result: fc.constantFrom(...HTTP_ASYNC_ATTEMPT_RESULTS),
      status: fc.integer({ min: 100, max: 599 }),
      latencyMs: durationMs,
      error: shortText,
      attemptedAt: timestamp,
      nextAttemptAt: timestamp,
    },
    { requiredKeys: [...httpAsyncDeliveryKeys, 'attempt', 'result', 'latencyMs', 'attemptedAt'] },
  ),
  HttpAsyncCallbackDelivered: fc.record({
    ...httpAsyncDelivery,
    attempts: fc.integer({ min: 1, max: 1000 }),
    status: fc.integer({ min: 200, max: 299 }),
    deliveredAt: timestamp,
  }),
  HttpAsyncCallbackDeadLettered: fc.record(
    {
      ...httpAsyncDelivery,
      reason: fc.constantFrom(...HTTP_ASYNC_DEAD_LETTER_REASONS),
      attempts: fc.integer({ min: 0, max: 1000 }),
      lastError: shortText,
      lastStatus: fc.integer({ min: 100, max: 599 }),
      deadLetteredAt: timestamp,
    },
    { requiredKeys: [...httpAsyncDeliveryKeys, 'reason', 'attempts', 'deadLetteredAt'] },
  ),
  VoiceCallStatusChanged: fc.record(
    {
      callId: id,
      projectId: id,
      tenantId: id,
      accountId: id,
      sessionId: id,
      status: fc.constantFrom(...VOICE_CALL_STATUSES),
      direction: fc.string({ minLength: 1, maxLength: 64 }),
      durationSeconds: count,
      sequenceNumber: count,
      errorCode: fc.string({ minLength: 1, maxLength: 32 }),
      occurredAt: timestamp,
      reportedAt: timestamp,
    },
    { requiredKeys: ['callId', 'projectId', 'accountId', 'status', 'reportedAt'] },
  ),
  AuditRecorded: fc
    .tuple(
      fc.record(
        {
          projectId: id,
          tenantId: id,
          principal,
          resource: fc.record({ type: shortText, id }),
          at: timestamp,
        },
        { requiredKeys: ['projectId', 'principal', 'resource', 'at'] },
      ),
      fc.oneof(knownAuditContent, otherAuditContent),
    )
    .map(([record, { action, content }]) => ({ ...record, action, content })),
};

/** LlmCallRecorded data as schema version 1 stored it. */
export const llmCallRecordedV1Arbitrary: fc.Arbitrary<LlmCallRecordedV1Data> = fc.record(
  {
    ...llmCallCommon(),
    promptTokens: count,
    completionTokens: count,
    totalTokens: count,
    latency: fc.double({ min: 0, max: 3600, noNaN: true }),
    timeToFirstToken: fc.double({ min: 0, max: 3600, noNaN: true }),
  },
  { requiredKeys: [...llmCallRequiredKeys, 'promptTokens', 'completionTokens', 'totalTokens', 'latency'] },
);

export type AnyEventInput = { [T in EventType]: { type: T; data: EventDataInput<T> } }[EventType];

/** Any event type with valid data. */
export const anyEventArbitrary: fc.Arbitrary<AnyEventInput> = fc.oneof(
  ...eventTypes.map((type) =>
    (eventDataArbitraries[type] as fc.Arbitrary<Record<string, unknown>>).map(
      (data) => ({ type, data }) as AnyEventInput,
    ),
  ),
);
