import type { RecordedEvent } from '@parley/eventstore';
import { z } from 'zod';

/**
 * The contract between Parley and the downstream systems that read its log over NATS JetStream
 * (docs/downstream.md): where each event is published (the subject) and what the message holds (the
 * payload), as one zod schema both sides use.
 */

/** The JetStream stream every event is published to (created or updated when the relay starts). */
export const DEFAULT_STREAM_NAME = 'PARLEY_EVENTS';
/** Every Parley subject starts with this token. */
export const SUBJECT_PREFIX = 'parley';
/** The subject token of a missing tenant or project id (events outside any project). */
export const NO_ID_TOKEN = '_';

/**
 * One subject token from an id: letters, digits, `_` and `-` stay; every other UTF-8 byte is `%XX`
 * (NATS subject tokens cannot hold `.`, `*`, `>` or whitespace). Empty or missing: `_`.
 */
export function subjectToken(value: string | undefined): string {
  if (value === undefined || value === '') return NO_ID_TOKEN;
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `<prefix>.<tenantId>.<projectId>.<eventType>` (prefix default `parley`; tokens as subjectToken makes them). */
export function subjectOf(
  event: Pick<RecordedEvent, 'type' | 'metadata'>,
  prefix: string = SUBJECT_PREFIX,
): string {
  const tenant = typeof event.metadata.tenantId === 'string' ? event.metadata.tenantId : undefined;
  const project = typeof event.metadata.projectId === 'string' ? event.metadata.projectId : undefined;
  return [prefix, subjectToken(tenant), subjectToken(project), subjectToken(event.type)].join('.');
}

const decimal = z.string().regex(/^\d+$/);

/** The JSON payload of every message: the event as the log holds it, with its position. */
export const publishedEventSchema = z.strictObject({
  /** The event's id: also the message's `Nats-Msg-Id` (JetStream drops a repeat within its window). */
  eventId: z.string().min(1),
  type: z.string().min(1),
  schemaVersion: z.int().min(1),
  /** The log stream (`session-<id>`, `recording-<id>`, …) and the event's revision in it (decimal string). */
  stream: z.string().min(1),
  revision: decimal,
  /** Its place in the whole log (decimal strings: 64-bit numbers); compare commit, then prepare. */
  position: z.strictObject({ commit: decimal, prepare: decimal }),
  /** ISO 8601. */
  recordedAt: z.iso.datetime({ offset: true }),
  data: z.record(z.string(), z.unknown()),
  /** tenantId, projectId, correlationId, causationId, … as appended. */
  metadata: z.record(z.string(), z.unknown()),
});
export type PublishedEvent = z.infer<typeof publishedEventSchema>;

/** The payload of a recorded event (what the relay and `parley replay --to-nats` publish). */
export function toPublishedEvent(event: RecordedEvent): PublishedEvent {
  return {
    eventId: event.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    stream: event.stream,
    revision: event.revision.toString(),
    position: { commit: event.position.commit.toString(), prepare: event.position.prepare.toString() },
    recordedAt: event.recordedAt.toISOString(),
    data: event.data,
    metadata: event.metadata as Record<string, unknown>,
  };
}
