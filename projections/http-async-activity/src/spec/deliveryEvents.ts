import { type EventDataInput, toAppend } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';

/** One delivery's scope, for building its events in tests. */
export interface DeliveryScope {
  projectId: string;
  subscriptionId: string;
  messageId: string;
  deliveryId: string;
  eventType?: 'agent.response' | 'agent.status' | 'agent.media';
}

const scopeOf = (s: DeliveryScope) => ({
  projectId: s.projectId,
  subscriptionId: s.subscriptionId,
  messageId: s.messageId,
  deliveryId: s.deliveryId,
  eventType: s.eventType ?? ('agent.response' as const),
});
const meta = (s: DeliveryScope) => ({ projectId: s.projectId, correlationId: s.messageId });

export const queued = (
  s: DeliveryScope,
  extra: Partial<EventDataInput<'HttpAsyncCallbackQueued'>> = {},
): EventToAppend =>
  toAppend(
    'HttpAsyncCallbackQueued',
    {
      ...scopeOf(s),
      payload: { message_id: s.messageId, response: 'hello' },
      test: false,
      firstAttempt: 1,
      maxAttempts: 3,
      queuedAt: '2025-03-01T10:00:00.000Z',
      ...extra,
    },
    meta(s),
  );

export const attempted = (
  s: DeliveryScope,
  attempt: number,
  extra: Partial<EventDataInput<'HttpAsyncCallbackAttempted'>> = {},
): EventToAppend =>
  toAppend(
    'HttpAsyncCallbackAttempted',
    {
      ...scopeOf(s),
      attempt,
      result: 'failed',
      status: 503,
      latencyMs: 40 + attempt,
      error: 'HTTP 503',
      attemptedAt: `2025-03-01T10:0${attempt}:00.000Z`,
      ...extra,
    },
    meta(s),
  );

export const delivered = (s: DeliveryScope, attempts: number, deliveredAt: string): EventToAppend =>
  toAppend('HttpAsyncCallbackDelivered', { ...scopeOf(s), attempts, status: 200, deliveredAt }, meta(s));

export const deadLettered = (
  s: DeliveryScope,
  extra: Partial<EventDataInput<'HttpAsyncCallbackDeadLettered'>> = {},
): EventToAppend =>
  toAppend(
    'HttpAsyncCallbackDeadLettered',
    {
      ...scopeOf(s),
      reason: 'attempts_exhausted',
      attempts: 3,
      lastError: 'HTTP 503',
      lastStatus: 503,
      deadLetteredAt: '2025-03-01T10:09:00.000Z',
      ...extra,
    },
    meta(s),
  );
