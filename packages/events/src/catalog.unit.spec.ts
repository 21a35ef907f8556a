import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EventType,
  eventCatalog,
  eventTypes,
  type ParleyEvent,
  parseEvent,
  toAppend,
  upcast,
} from './catalog.js';
import { InvalidEventDataError, UnknownEventTypeError } from './errors.js';
import { anyEventArbitrary, eventDataArbitraries } from './testing/arbitraries.js';
import { eventExamples } from './testing/fixtures.js';
import { recordedFrom } from './testing/recordedFrom.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the catalog', () => {
  it('lists every event type once, named as past-tense PascalCase facts', () => {
    expect([...eventTypes].sort()).toEqual(
      [
        'AgentHandedOff',
        'AgentReplied',
        'AuditRecorded',
        'ChannelDeliveryReported',
        'ChannelMessageSent',
        'ChannelSendFailed',
        'ChannelSendSuppressed',
        'HttpAsyncCallbackAttempted',
        'HttpAsyncCallbackDeadLettered',
        'HttpAsyncCallbackDelivered',
        'HttpAsyncCallbackQueued',
        'HttpAsyncMessageAccepted',
        'LlmCallRecorded',
        'MessageReceived',
        'RecordingCompleted',
        'RecordingDeleted',
        'RecordingFailed',
        'RecordingFileStored',
        'RecordingLegalHoldLifted',
        'RecordingLegalHoldPlaced',
        'RecordingMediaDeleted',
        'RecordingRetentionExpired',
        'RecordingStarted',
        'SessionArchived',
        'SessionEnded',
        'SessionIdled',
        'SessionStarted',
        'ToolCallResumed',
        'ToolCallSuspended',
        'TraceEventRecorded',
        'VoiceCallStatusChanged',
      ].sort(),
    );
    for (const type of eventTypes) {
      // Past tense: regular -ed, or an irregular participle (ChannelMessageSent), or a phrasal
      // verb's participle (AgentHandedOff).
      expect(type).toMatch(/^[A-Z][A-Za-z]*(ed|Sent|edOff)$/);
      expect(eventCatalog.definitions[type].type).toBe(type);
    }
  });

  it('is at version 2 for LlmCallRecorded and 1 for everything else', () => {
    const versions = Object.fromEntries(
      eventTypes.map((type) => [type, eventCatalog.definitions[type].schemaVersion]),
    );
    expect(versions).toEqual({
      ...Object.fromEntries(eventTypes.map((type) => [type, 1])),
      LlmCallRecorded: 2,
    });
  });
});

describe('toAppend', () => {
  it('validates and stamps the current schema version and a fresh UUID', () => {
    const event = toAppend('LlmCallRecorded', eventExamples.LlmCallRecorded);
    expect(event).toMatchObject({
      type: 'LlmCallRecorded',
      schemaVersion: 2,
      data: eventExamples.LlmCallRecorded,
    });
    expect(event.eventId).toMatch(UUID);
    expect(toAppend('SessionEnded', eventExamples.SessionEnded).eventId).not.toBe(event.eventId);
  });

  it('keeps a given event id (idempotent appends) and refuses one that is not a UUID', () => {
    const eventId = '0b6f3c1e-9a2d-4f5b-8c7d-6e5f4a3b2c1d';
    expect(toAppend('SessionEnded', eventExamples.SessionEnded, {}, eventId).eventId).toBe(eventId);
    expect(() => toAppend('SessionEnded', eventExamples.SessionEnded, {}, 'msg-1')).toThrow(/must be a UUID/);
  });

  it('copies tenantId and projectId into missing metadata, keeps the rest, refuses a contradiction', () => {
    const metadata = { correlationId: 'c1', causationId: 'e0' };
    expect(toAppend('SessionStarted', eventExamples.SessionStarted, metadata).metadata).toEqual({
      ...metadata,
      tenantId: 'ten_acme',
      projectId: 'proj_acme_support',
    });
    expect(toAppend('SessionEnded', eventExamples.SessionEnded).metadata).toEqual({
      projectId: 'proj_acme_support',
    });
    expect(() => toAppend('SessionEnded', eventExamples.SessionEnded, { projectId: 'other' })).toThrow(
      /metadata\.projectId: differs from data\.projectId/,
    );
  });

  it('refuses invalid data with an error naming the type, version and field', () => {
    const data = { ...eventExamples.SessionEnded, status: 'active' } as never;
    const error = catchError(() => toAppend('SessionEnded', data));
    expect(error).toBeInstanceOf(InvalidEventDataError);
    expect(error).toMatchObject({ code: 'INVALID_EVENT_DATA', eventType: 'SessionEnded', schemaVersion: 1 });
    expect((error as InvalidEventDataError).issues.map((issue) => issue.path)).toEqual([['status']]);
    expect((error as Error).message).toMatch(/^invalid SessionEnded v1 data: status: /);
  });

  it('never echoes the offending value in the error (it may be message text)', () => {
    const data = { ...eventExamples.MessageReceived, text: { secret: 'my card is 4242' } } as never;
    expect(catchError(() => toAppend('MessageReceived', data))).not.toHaveProperty(
      'message',
      expect.stringContaining('4242'),
    );
  });

  it('refuses an unknown type', () => {
    expect(() => toAppend('SessionPaused' as EventType, {} as never)).toThrow(UnknownEventTypeError);
  });
});

describe('parseEvent', () => {
  it('round-trips any valid data of every type through toAppend and the log', () => {
    fc.assert(
      fc.property(anyEventArbitrary, ({ type, data }) => {
        const appended = toAppend(type, data as never);
        const parsed = parseEvent(recordedFrom(appended));
        expect(parsed).toMatchObject({ known: true, type, schemaVersion: appended.schemaVersion });
        expect(parsed.data).toEqual(data);
      }),
      { numRuns: 500 },
    );
  });

  it.each(eventTypes)('round-trips %s', (type) => {
    fc.assert(
      fc.property(eventDataArbitraries[type] as fc.Arbitrary<Record<string, unknown>>, (data) => {
        expect(parseEvent(recordedFrom(toAppend(type, data as never))).data).toEqual(data);
      }),
      { numRuns: 50 },
    );
  });

  it('gives typed data, narrowed by type', () => {
    const parsed = parseEvent(recordedFrom(toAppend('LlmCallRecorded', eventExamples.LlmCallRecorded)));
    expect(parsed.known && describeEvent(parsed)).toBe('call llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1: 1904 tokens');
    expect(parsed.recorded.eventId).toMatch(UUID);
  });

  it('returns an unknown type as known: false, untouched, whatever its data', () => {
    const recorded = recordedFrom({ eventId: crypto.randomUUID(), type: 'SessionPaused', data: { x: 1 } });
    expect(parseEvent(recorded)).toEqual({
      known: false,
      type: 'SessionPaused',
      schemaVersion: 1,
      data: { x: 1 },
      recorded,
    });
  });

  it('throws for stored data that does not match, naming the event', () => {
    const recorded = recordedFrom({
      eventId: '0b6f3c1e-9a2d-4f5b-8c7d-6e5f4a3b2c1d',
      type: 'RecordingFailed',
      data: { ...eventExamples.RecordingFailed, reason: 'deleted' },
    });
    expect(() => parseEvent(recorded)).toThrow(
      'invalid RecordingFailed v1 data (event 0b6f3c1e-9a2d-4f5b-8c7d-6e5f4a3b2c1d): reason:',
    );
  });
});

describe('upcast on current events', () => {
  it('is the identity, so applying it again changes nothing', () => {
    fc.assert(
      fc.property(anyEventArbitrary, ({ type, data }) => {
        const recorded = recordedFrom(toAppend(type, data as never));
        expect(upcast(recorded)).toBe(recorded);
        expect(upcast(upcast(recorded))).toEqual(recorded);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves unknown types alone, whatever their version', () => {
    const recorded = recordedFrom({
      eventId: crypto.randomUUID(),
      type: 'Later',
      schemaVersion: 9,
      data: {},
    });
    expect(upcast(recorded)).toBe(recorded);
  });
});

function describeEvent(event: ParleyEvent): string {
  switch (event.type) {
    case 'LlmCallRecorded':
      return `call ${event.data.callId}: ${event.data.usage.totalTokens} tokens`;
    case 'SessionStarted':
      return `session ${event.data.sessionId} on ${event.data.channel}`;
    default:
      return event.type;
  }
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
