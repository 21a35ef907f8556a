import { parseEvent } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';
import type { RecordingEvent } from './recordingFacts.js';

export type SessionEvent = {
  type: 'SessionStarted' | 'SessionEnded';
  projectId: string;
  sessionId: string;
} & ({ type: 'SessionStarted'; recordingEnabled: boolean | undefined } | { type: 'SessionEnded' });

export type ParsedEvent =
  | { kind: 'recording'; event: RecordingEvent }
  | { kind: 'session'; event: SessionEvent };

// keys() and evolve() of both tables see the same event object: parse (upcast, validate) it once.
const cache = new WeakMap<RecordedEvent, ParsedEvent | null>();

/**
 * The event, upcast and validated, when this projection reads it; null otherwise. Invalid data
 * throws, which stops the projection rather than skipping a fact.
 */
export function parsedEvent(event: RecordedEvent): ParsedEvent | null {
  const cached = cache.get(event);
  if (cached !== undefined) return cached;
  const parsed = parseEvent(event);
  let result: ParsedEvent | null = null;
  if (parsed.known) {
    switch (parsed.type) {
      case 'SessionStarted':
        result = {
          kind: 'session',
          event: {
            type: 'SessionStarted',
            projectId: parsed.data.projectId,
            sessionId: parsed.data.sessionId,
            recordingEnabled: parsed.data.recordingEnabled,
          },
        };
        break;
      case 'SessionEnded':
        result = {
          kind: 'session',
          event: { type: 'SessionEnded', projectId: parsed.data.projectId, sessionId: parsed.data.sessionId },
        };
        break;
      case 'RecordingStarted':
      case 'RecordingCompleted':
      case 'RecordingFileStored':
      case 'RecordingFailed':
      case 'RecordingDeleted':
      case 'RecordingRetentionExpired':
      case 'RecordingMediaDeleted':
      case 'RecordingLegalHoldPlaced':
      case 'RecordingLegalHoldLifted':
        result = { kind: 'recording', event: parsed as RecordingEvent };
        break;
      default:
        break;
    }
  }
  cache.set(event, result);
  return result;
}
