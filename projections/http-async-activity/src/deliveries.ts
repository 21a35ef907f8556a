import { httpAsyncStream } from '@parley/events';
import type { EventStore, RecordedEvent } from '@parley/eventstore';
import type { Pool, PoolClient } from '@parley/platform';
import { type ProjectionFreshness, projectionFreshness } from '@parley/projection-runner';
import {
  type DeliveryStatus,
  deliveryFromEvents,
  HTTP_ASYNC_ACTIVITY_PROJECTION,
  type HttpAsyncDeliveryAttemptRow,
  type HttpAsyncDeliveryRow,
} from './httpAsyncActivityProjection.js';

type Db = Pool | PoolClient;

/** One callback delivery of a subscription, as the Activity log shows it. */
export interface HttpAsyncDelivery {
  deliveryId: string;
  projectId: string;
  subscriptionId: string;
  messageId: string;
  eventType: string;
  sessionId: string | null;
  test: boolean;
  status: DeliveryStatus;
  /** The highest attempt number made (0: none yet); numbers continue across redeliveries. */
  attempts: number;
  /** The first attempt number of the latest queueing (1, or more after a redelivery). */
  firstAttempt: number;
  /** The highest attempt number a job of the delivery used (nextFirstAttempt). */
  reservedAttempt: number;
  maxAttempts: number | null;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deadLetterReason: string | null;
  queuedAt: Date;
  requeuedAt: Date | null;
  deliveredAt: Date | null;
  deadLetteredAt: Date | null;
  updatedAt: Date;
  /** The callback body every attempt sends. */
  payload: Record<string, unknown> | null;
}

export interface HttpAsyncDeliveryAttempt {
  attempt: number;
  result: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
  attemptedAt: Date;
  nextAttemptAt: Date | null;
}

export interface DeliveryFilter {
  projectId: string;
  subscriptionId: string;
  eventType?: string;
  status?: DeliveryStatus;
  messageId?: string;
  limit: number;
  offset: number;
}

const toDelivery = (r: HttpAsyncDeliveryRow): HttpAsyncDelivery => ({
  deliveryId: r.delivery_id,
  projectId: r.project_id,
  subscriptionId: r.subscription_id,
  messageId: r.message_id,
  eventType: r.event_type,
  sessionId: r.session_id,
  test: r.test,
  status: r.status as DeliveryStatus,
  attempts: r.attempts,
  firstAttempt: r.first_attempt,
  reservedAttempt: r.reserved_attempt,
  maxAttempts: r.max_attempts,
  lastStatus: r.last_status,
  lastLatencyMs: r.last_latency_ms,
  lastError: r.last_error,
  lastAttemptAt: r.last_attempt_at,
  nextAttemptAt: r.next_attempt_at,
  deadLetterReason: r.dead_letter_reason,
  queuedAt: r.queued_at,
  requeuedAt: r.requeued_at,
  deliveredAt: r.delivered_at,
  deadLetteredAt: r.dead_lettered_at,
  updatedAt: r.updated_at,
  payload: r.payload as Record<string, unknown> | null,
});

const toAttempt = (r: HttpAsyncDeliveryAttemptRow): HttpAsyncDeliveryAttempt => ({
  attempt: r.attempt,
  result: r.result,
  status: r.status,
  latencyMs: r.latency_ms,
  error: r.error,
  attemptedAt: r.attempted_at,
  nextAttemptAt: r.next_attempt_at,
});

/**
 * A subscription's deliveries, newest first (by first queueing, then delivery id), with the
 * number matching the filter. Reads the live generation's view.
 */
export async function listDeliveries(
  db: Db,
  filter: DeliveryFilter,
): Promise<{ deliveries: HttpAsyncDelivery[]; total: number }> {
  const where = `project_id = $1 and subscription_id = $2
      and ($3::text is null or event_type = $3)
      and ($4::text is null or status = $4)
      and ($5::text is null or message_id = $5)`;
  const params = [
    filter.projectId,
    filter.subscriptionId,
    filter.eventType ?? null,
    filter.status ?? null,
    filter.messageId ?? null,
  ];
  const [page, count] = await Promise.all([
    db.query<HttpAsyncDeliveryRow>(
      `select * from http_async_deliveries where ${where}
        order by queued_at desc, delivery_id desc limit $6 offset $7`,
      [...params, filter.limit, filter.offset],
    ),
    db.query<{ total: number }>(
      `select count(*)::int as total from http_async_deliveries where ${where}`,
      params,
    ),
  ]);
  return { deliveries: page.rows.map(toDelivery), total: count.rows[0]?.total ?? 0 };
}

/** One delivery of the subscription with its attempts (oldest first); null when it has none such. */
export async function getDelivery(
  db: Db,
  projectId: string,
  subscriptionId: string,
  deliveryId: string,
): Promise<(HttpAsyncDelivery & { attemptLog: HttpAsyncDeliveryAttempt[] }) | null> {
  const found = await db.query<HttpAsyncDeliveryRow>(
    `select * from http_async_deliveries
      where delivery_id = $1 and project_id = $2 and subscription_id = $3`,
    [deliveryId, projectId, subscriptionId],
  );
  const row = found.rows[0];
  if (row === undefined) return null;
  const attempts = await db.query<HttpAsyncDeliveryAttemptRow>(
    'select * from http_async_delivery_attempts where delivery_id = $1 order by attempt',
    [deliveryId],
  );
  return { ...toDelivery(row), attemptLog: attempts.rows.map(toAttempt) };
}

/**
 * A delivery as its stream in the log says now (the projection's fold, without its lag): for
 * decisions that must not act on a stale row (redelivery). Null when the stream has no delivery.
 */
export async function readDeliveryFromLog(
  store: EventStore,
  deliveryId: string,
): Promise<HttpAsyncDelivery | null> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(httpAsyncStream(deliveryId))) events.push(event);
  const row = deliveryFromEvents(events);
  return row === undefined || row.delivery_id !== deliveryId ? null : toDelivery(row);
}

/** How far the Activity log has caught up with the log (the routes' `freshness` field). */
export const httpAsyncActivityFreshness = (db: Db): Promise<ProjectionFreshness> =>
  projectionFreshness(db, HTTP_ASYNC_ACTIVITY_PROJECTION);
