import type { RecordedEvent } from '@parley/eventstore';
import { defineProjection, type RowOf } from '@parley/projection-runner';
import { DELIVERY_EVENT_TYPES, type DeliveryEvent, deliveryEvent } from './deliveryEvent.js';

export const HTTP_ASYNC_ACTIVITY_PROJECTION = 'http-async-activity';

/**
 * A delivery's state: `pending` (queued, its first attempt of this queueing not made yet),
 * `failed` (the last attempt failed and another is due at `next_attempt_at`), `delivered`,
 * `dead_lettered` (given up; a redelivery makes it `pending` again).
 */
export const DELIVERY_STATUSES = ['pending', 'failed', 'delivered', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const at = (iso: string): Date => new Date(iso);

/** The columns every delivery event carries. */
function scopeOf(e: DeliveryEvent) {
  return {
    project_id: e.data.projectId,
    subscription_id: e.data.subscriptionId,
    message_id: e.data.messageId,
    event_type: e.data.eventType,
  };
}

const deliveryTable = {
  columns: {
    delivery_id: 'text',
    project_id: 'text',
    subscription_id: 'text',
    message_id: 'text',
    event_type: 'text',
    session_id: { type: 'text', nullable: true },
    test: 'boolean',
    status: 'text',
    /** The highest attempt number made (numbers continue across redeliveries). */
    attempts: 'integer',
    /** The first attempt number of the latest queueing. */
    first_attempt: 'integer',
    /**
     * The highest attempt number any job of this delivery used: attempts made, a queueing's first
     * attempt, or the attempt that found the subscription paused or deleted (no request made).
     */
    reserved_attempt: 'integer',
    /** Attempts the latest queueing allows. */
    max_attempts: { type: 'integer', nullable: true },
    last_status: { type: 'integer', nullable: true },
    last_latency_ms: { type: 'integer', nullable: true },
    last_error: { type: 'text', nullable: true },
    last_attempt_at: { type: 'timestamptz', nullable: true },
    next_attempt_at: { type: 'timestamptz', nullable: true },
    dead_letter_reason: { type: 'text', nullable: true },
    /** The first queueing. */
    queued_at: 'timestamptz',
    /** The latest redelivery; null when never redelivered. */
    requeued_at: { type: 'timestamptz', nullable: true },
    delivered_at: { type: 'timestamptz', nullable: true },
    dead_lettered_at: { type: 'timestamptz', nullable: true },
    updated_at: 'timestamptz',
    payload: { type: 'jsonb', nullable: true },
    /** The revision of the last event applied in the delivery's stream. */
    stream_revision: 'bigint',
  },
  primaryKey: ['delivery_id'],
  indexes: [
    { columns: ['project_id', 'subscription_id', 'queued_at', 'delivery_id'] },
    { columns: ['project_id', 'subscription_id', 'message_id'] },
  ],
} as const;

const attemptTable = {
  columns: {
    delivery_id: 'text',
    attempt: 'integer',
    result: 'text',
    status: { type: 'integer', nullable: true },
    latency_ms: 'integer',
    error: { type: 'text', nullable: true },
    attempted_at: 'timestamptz',
    next_attempt_at: { type: 'timestamptz', nullable: true },
  },
  primaryKey: ['delivery_id', 'attempt'],
} as const;

type DeliveryRow = RowOf<typeof deliveryTable>;
type AttemptRow = RowOf<typeof attemptTable>;

/** A row for a delivery whose Queued event was not seen (never the case when the log is whole). */
function blankDelivery(e: DeliveryEvent, time: Date): DeliveryRow {
  return {
    delivery_id: e.data.deliveryId,
    ...scopeOf(e),
    session_id: null,
    test: false,
    status: 'pending',
    attempts: 0,
    first_attempt: 1,
    reserved_attempt: 0,
    max_attempts: null,
    last_status: null,
    last_latency_ms: null,
    last_error: null,
    last_attempt_at: null,
    next_attempt_at: null,
    dead_letter_reason: null,
    queued_at: time,
    requeued_at: null,
    delivered_at: null,
    dead_lettered_at: null,
    updated_at: time,
    payload: null,
    stream_revision: -1,
  };
}

/**
 * The delivery row's next state. Every event of one delivery is in its own stream
 * (`httpasync-<deliveryId>`, one writer at a time), so the stream revision orders them: an event at
 * or before the row's revision is a replay and changes nothing.
 */
function evolveDelivery(row: DeliveryRow | undefined, event: RecordedEvent): DeliveryRow | undefined {
  const e = deliveryEvent(event);
  if (e === null) return row;
  const revision = Number(event.revision);
  if (row !== undefined && revision <= row.stream_revision) return row;
  switch (e.type) {
    case 'HttpAsyncCallbackQueued': {
      const queuedAt = at(e.data.queuedAt);
      // A queueing already seen (a retried turn job under another event id): not a redelivery.
      if (row !== undefined && e.data.firstAttempt <= row.first_attempt && row.max_attempts !== null) {
        return { ...row, stream_revision: revision };
      }
      const base = row ?? { ...blankDelivery(e, queuedAt), queued_at: queuedAt };
      const redelivery = row !== undefined;
      return {
        ...base,
        session_id: e.data.sessionId ?? base.session_id,
        test: e.data.test,
        status: 'pending',
        first_attempt: e.data.firstAttempt,
        reserved_attempt: Math.max(base.reserved_attempt, e.data.firstAttempt),
        max_attempts: e.data.maxAttempts,
        next_attempt_at: null,
        dead_letter_reason: null,
        delivered_at: null,
        dead_lettered_at: null,
        requeued_at: redelivery ? queuedAt : null,
        updated_at: queuedAt,
        payload: e.data.payload,
        stream_revision: revision,
      };
    }
    case 'HttpAsyncCallbackAttempted': {
      const attemptedAt = at(e.data.attemptedAt);
      const base = row ?? blankDelivery(e, attemptedAt);
      const reserved_attempt = Math.max(base.reserved_attempt, e.data.attempt);
      if (e.data.attempt < base.attempts) return { ...base, reserved_attempt, stream_revision: revision };
      return {
        ...base,
        reserved_attempt,
        status: e.data.result === 'delivered' ? 'delivered' : 'failed',
        attempts: e.data.attempt,
        last_status: e.data.status ?? null,
        last_latency_ms: e.data.latencyMs,
        last_error: e.data.error ?? null,
        last_attempt_at: attemptedAt,
        next_attempt_at: e.data.nextAttemptAt === undefined ? null : at(e.data.nextAttemptAt),
        updated_at: attemptedAt,
        stream_revision: revision,
      };
    }
    case 'HttpAsyncCallbackDelivered': {
      const deliveredAt = at(e.data.deliveredAt);
      const base = row ?? blankDelivery(e, deliveredAt);
      return {
        ...base,
        status: 'delivered',
        attempts: Math.max(base.attempts, e.data.attempts),
        reserved_attempt: Math.max(base.reserved_attempt, e.data.attempts),
        last_status: e.data.status,
        last_error: null,
        next_attempt_at: null,
        delivered_at: deliveredAt,
        updated_at: deliveredAt,
        stream_revision: revision,
      };
    }
    case 'HttpAsyncCallbackDeadLettered': {
      const deadAt = at(e.data.deadLetteredAt);
      const base = row ?? blankDelivery(e, deadAt);
      return {
        ...base,
        status: 'dead_lettered',
        // attempts_exhausted: `attempts` is the last attempt made; paused or deleted: the attempts
        // before the job that found it so (that job's number is used, though no request was sent).
        reserved_attempt: Math.max(
          base.reserved_attempt,
          e.data.reason === 'attempts_exhausted' ? e.data.attempts : e.data.attempts + 1,
        ),
        last_status: e.data.lastStatus ?? base.last_status,
        last_error: e.data.lastError ?? base.last_error,
        next_attempt_at: null,
        dead_letter_reason: e.data.reason,
        dead_lettered_at: deadAt,
        updated_at: deadAt,
        stream_revision: revision,
      };
    }
    default: {
      const unreachable: never = e;
      return unreachable;
    }
  }
}

function evolveAttempt(row: AttemptRow | undefined, event: RecordedEvent): AttemptRow | undefined {
  const e = deliveryEvent(event);
  if (e?.type !== 'HttpAsyncCallbackAttempted') return row;
  return {
    delivery_id: e.data.deliveryId,
    attempt: e.data.attempt,
    result: e.data.result,
    status: e.data.status ?? null,
    latency_ms: e.data.latencyMs,
    error: e.data.error ?? null,
    attempted_at: at(e.data.attemptedAt),
    next_attempt_at: e.data.nextAttemptAt === undefined ? null : at(e.data.nextAttemptAt),
  };
}

/**
 * The Activity log of webhook subscriptions (spec 001 §4.9 "deliveries reviewed under the Activity
 * tab"): one row per callback delivery and one per attempt, from the HttpAsyncCallback* events.
 */
export const httpAsyncActivityProjection = defineProjection({
  name: HTTP_ASYNC_ACTIVITY_PROJECTION,
  version: 1,
  eventTypes: DELIVERY_EVENT_TYPES,
  tables: { http_async_deliveries: deliveryTable, http_async_delivery_attempts: attemptTable },
  handlers: {
    http_async_deliveries: {
      keys: (event) => {
        const e = deliveryEvent(event);
        return e === null ? [] : [{ delivery_id: e.data.deliveryId }];
      },
      evolve: (row, event) => evolveDelivery(row, event),
    },
    http_async_delivery_attempts: {
      keys: (event) => {
        const e = deliveryEvent(event);
        return e?.type === 'HttpAsyncCallbackAttempted'
          ? [{ delivery_id: e.data.deliveryId, attempt: e.data.attempt }]
          : [];
      },
      evolve: (row, event) => evolveAttempt(row, event),
    },
  },
});

/**
 * The first attempt number of a redelivery: after every number a job of the delivery used (an
 * attempt made, a queueing's first attempt, the attempt that found the subscription paused), whose
 * event ids and job ids are taken, so attempt numbers, event ids and job ids never repeat.
 */
export const nextFirstAttempt = (d: { reservedAttempt: number }): number => d.reservedAttempt + 1;

/** A delivery's row from its stream's events, in stream order (the projection's own fold). */
export function deliveryFromEvents(events: Iterable<RecordedEvent>): DeliveryRow | undefined {
  let row: DeliveryRow | undefined;
  for (const event of events) {
    const e = deliveryEvent(event);
    if (e === null || (row !== undefined && e.data.deliveryId !== row.delivery_id)) continue;
    row = evolveDelivery(row, event);
  }
  return row;
}

export type HttpAsyncDeliveryRow = DeliveryRow;
export type HttpAsyncDeliveryAttemptRow = AttemptRow;
