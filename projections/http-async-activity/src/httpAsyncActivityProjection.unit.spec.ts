import { randomUUID } from 'node:crypto';
import { httpAsyncStream } from '@parley/events';
import { recordedFrom } from '@parley/events/testing';
import type { EventToAppend, RecordedEvent } from '@parley/eventstore';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deliveryFromEvents,
  httpAsyncActivityProjection,
  nextFirstAttempt,
} from './httpAsyncActivityProjection.js';
import { attempted, type DeliveryScope, deadLettered, delivered, queued } from './spec/deliveryEvents.js';

const scope: DeliveryScope = {
  projectId: 'proj_1',
  subscriptionId: 'sub_1',
  messageId: 'ham_1',
  deliveryId: 'dlv-1',
};

let seq = 0;
/** The events as one stream of the log: revisions 0, 1, ... and increasing positions. */
function stream(events: readonly EventToAppend[], id = scope.deliveryId): RecordedEvent[] {
  return events.map((e, revision) => {
    seq += 1;
    return recordedFrom(e, {
      stream: httpAsyncStream(id),
      revision: BigInt(revision),
      position: { commit: BigInt(seq), prepare: BigInt(seq) },
    });
  });
}

const rows = (events: readonly RecordedEvent[]) => {
  const state = projectInMemory(httpAsyncActivityProjection, events);
  return {
    deliveries: memoryRows(state, 'http_async_deliveries'),
    attempts: memoryRows(state, 'http_async_delivery_attempts'),
  };
};

const failedThenDeadThenRedelivered = [
  queued(scope, { sessionId: 'sess_1' }),
  attempted(scope, 1, { nextAttemptAt: '2025-03-01T10:01:10.000Z' }),
  attempted(scope, 2, { nextAttemptAt: '2025-03-01T10:02:30.000Z' }),
  attempted(scope, 3, { result: 'refused', status: undefined, error: 'forbidden_address' }),
  deadLettered(scope, { lastError: 'forbidden_address', lastStatus: undefined }),
  queued(scope, { sessionId: 'sess_1', firstAttempt: 4, queuedAt: '2025-03-01T11:00:00.000Z' }),
  attempted(scope, 4, {
    result: 'delivered',
    status: 200,
    error: undefined,
    attemptedAt: '2025-03-01T11:00:01.000Z',
  }),
  delivered(scope, 4, '2025-03-01T11:00:01.000Z'),
];

describe('http-async-activity handlers', () => {
  it('follows a delivery through queued, failed attempts, dead letter, redelivery and delivery', () => {
    const events = stream(failedThenDeadThenRedelivered);
    const base = {
      delivery_id: 'dlv-1',
      project_id: 'proj_1',
      subscription_id: 'sub_1',
      message_id: 'ham_1',
      event_type: 'agent.response',
      session_id: 'sess_1',
      test: false,
      max_attempts: 3,
      queued_at: new Date('2025-03-01T10:00:00.000Z'),
      payload: { message_id: 'ham_1', response: 'hello' },
      requeued_at: null,
      delivered_at: null,
      dead_lettered_at: null,
      dead_letter_reason: null,
    };

    expect(rows(events.slice(0, 1)).deliveries).toEqual([
      {
        ...base,
        status: 'pending',
        attempts: 0,
        first_attempt: 1,
        reserved_attempt: 1,
        last_status: null,
        last_latency_ms: null,
        last_error: null,
        last_attempt_at: null,
        next_attempt_at: null,
        updated_at: new Date('2025-03-01T10:00:00.000Z'),
        stream_revision: 0,
      },
    ]);
    expect(rows(events.slice(0, 2)).deliveries[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_status: 503,
      last_latency_ms: 41,
      last_error: 'HTTP 503',
      last_attempt_at: new Date('2025-03-01T10:01:00.000Z'),
      next_attempt_at: new Date('2025-03-01T10:01:10.000Z'),
    });
    const dead = rows(events.slice(0, 5));
    expect(dead.deliveries).toEqual([
      {
        ...base,
        status: 'dead_lettered',
        attempts: 3,
        first_attempt: 1,
        reserved_attempt: 3,
        last_status: null,
        last_latency_ms: 43,
        last_error: 'forbidden_address',
        last_attempt_at: new Date('2025-03-01T10:03:00.000Z'),
        next_attempt_at: null,
        dead_letter_reason: 'attempts_exhausted',
        dead_lettered_at: new Date('2025-03-01T10:09:00.000Z'),
        updated_at: new Date('2025-03-01T10:09:00.000Z'),
        stream_revision: 4,
      },
    ]);
    expect(nextFirstAttempt({ reservedAttempt: 3 })).toBe(4);

    const redelivered = rows(events.slice(0, 6)).deliveries[0];
    expect(redelivered).toMatchObject({
      status: 'pending',
      first_attempt: 4,
      attempts: 3,
      requeued_at: new Date('2025-03-01T11:00:00.000Z'),
      queued_at: new Date('2025-03-01T10:00:00.000Z'),
      dead_letter_reason: null,
      dead_lettered_at: null,
    });

    const done = rows(events);
    expect(done.deliveries).toEqual([
      {
        ...base,
        status: 'delivered',
        attempts: 4,
        first_attempt: 4,
        reserved_attempt: 4,
        last_status: 200,
        last_latency_ms: 44,
        last_error: null,
        last_attempt_at: new Date('2025-03-01T11:00:01.000Z'),
        next_attempt_at: null,
        requeued_at: new Date('2025-03-01T11:00:00.000Z'),
        delivered_at: new Date('2025-03-01T11:00:01.000Z'),
        updated_at: new Date('2025-03-01T11:00:01.000Z'),
        stream_revision: 7,
      },
    ]);
    expect(done.attempts).toEqual([
      {
        delivery_id: 'dlv-1',
        attempt: 1,
        result: 'failed',
        status: 503,
        latency_ms: 41,
        error: 'HTTP 503',
        attempted_at: new Date('2025-03-01T10:01:00.000Z'),
        next_attempt_at: new Date('2025-03-01T10:01:10.000Z'),
      },
      expect.objectContaining({ attempt: 2, result: 'failed', status: 503 }),
      {
        delivery_id: 'dlv-1',
        attempt: 3,
        result: 'refused',
        status: null,
        latency_ms: 43,
        error: 'forbidden_address',
        attempted_at: new Date('2025-03-01T10:03:00.000Z'),
        next_attempt_at: null,
      },
      expect.objectContaining({ attempt: 4, result: 'delivered', status: 200, error: null }),
    ]);
  });

  it('a paused dead letter: the redelivery starts after the attempt that found it paused', () => {
    const before = stream([
      queued(scope),
      deadLettered(scope, { reason: 'subscription_paused', attempts: 0 }),
    ]);
    expect(rows(before).deliveries[0]).toMatchObject({
      status: 'dead_lettered',
      attempts: 0,
      reserved_attempt: 1,
      last_error: 'HTTP 503',
      dead_letter_reason: 'subscription_paused',
    });
    // Attempts 1 and 2 failed, the job of attempt 3 found the subscription paused.
    const midway = stream([
      queued(scope),
      attempted(scope, 1, { nextAttemptAt: '2025-03-01T10:01:10.000Z' }),
      attempted(scope, 2, { nextAttemptAt: '2025-03-01T10:02:30.000Z' }),
      deadLettered(scope, { reason: 'subscription_paused', attempts: 2 }),
    ]);
    const [row] = rows(midway).deliveries;
    expect(row).toMatchObject({
      status: 'dead_lettered',
      attempts: 2,
      reserved_attempt: 3,
      next_attempt_at: null,
    });
    expect(nextFirstAttempt({ reservedAttempt: row?.reserved_attempt as number })).toBe(4);
    expect(deliveryFromEvents(midway)).toEqual(row);
    expect(deliveryFromEvents([])).toBeUndefined();
  });

  it('a test delivery keeps test: true and no session', () => {
    const [row] = rows(stream([queued(scope, { test: true })])).deliveries;
    expect(row).toMatchObject({ test: true, session_id: null, status: 'pending' });
  });

  it('replayed events, in any batch cut, change nothing; other event types are ignored', () => {
    const other = { ...scope, deliveryId: 'dlv-2', messageId: 'ham_2' };
    const once = stream(failedThenDeadThenRedelivered);
    const second = stream(
      [queued(other), attempted(other, 1, { result: 'delivered', status: 204 })],
      'dlv-2',
    );
    const all = [...once, ...second];
    const expected = rows(all);
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: all.length - 1 }), { maxLength: 6 }),
        fc.nat({ max: all.length }),
        (replays, cut) => {
          // Each chosen event also appears again right after itself (same id, revision, position).
          const withReplays = all.flatMap((e, i) => (replays.includes(i) ? [e, { ...e }] : [e]));
          const noise = recordedFrom(
            { eventId: randomUUID(), type: 'SomethingNew', data: { deliveryId: 'dlv-1' } },
            { position: { commit: 0n, prepare: 0n } },
          );
          const list = [noise, ...withReplays];
          const first = projectInMemory(httpAsyncActivityProjection, list.slice(0, cut));
          const state = projectInMemory(httpAsyncActivityProjection, list.slice(cut), first);
          expect(memoryRows(state, 'http_async_deliveries')).toEqual(expected.deliveries);
          expect(memoryRows(state, 'http_async_delivery_attempts')).toEqual(expected.attempts);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('reads only the four delivery events', () => {
    expect(httpAsyncActivityProjection.eventTypes).toEqual([
      'HttpAsyncCallbackQueued',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackDelivered',
      'HttpAsyncCallbackDeadLettered',
    ]);
  });
});
