import { performance } from 'node:perf_hooks';
import { httpAsyncStream, toAppend } from '@parley/events';
import { withLogTransaction } from '@parley/eventstore';
import type { PgBoss } from 'pg-boss';
import { callbackAuthHeaders } from './callbackSignature.js';
import { parseCallbackAllowlist } from './callbackUrl.js';
import { CallbackDeliveryRefusedError, createGuardedFetch } from './guardedFetch.js';
import {
  HTTP_ASYNC_CALLBACK_QUEUE,
  type HttpAsyncCallbackJobData,
  httpAsyncAttemptJobId,
  httpAsyncEventId,
} from './jobs.js';
import { retryDelayMs } from './schedule.js';
import type { CallbackFetch, HttpAsyncWorkerDeps } from './turn.js';
import { scheduleOf } from './turn.js';

/** Headers of every callback request (besides the return-path authentication). */
export const CALLBACK_USER_AGENT = 'Parley-Webhooks/1.0';
export const EVENT_HEADER = 'X-Parley-Event';
export const DELIVERY_HEADER = 'X-Parley-Delivery';
export const ATTEMPT_HEADER = 'X-Parley-Attempt';
/** Time limit of one callback request (lookup, connect, request, answer). */
export const CALLBACK_TIMEOUT_MS = 10_000;

export type CallbackJobOutcome =
  /** The receiver answered 2xx. */
  | { outcome: 'delivered'; status: number; attempt: number }
  /** The attempt failed (or was refused by the URL guard) and the next one is queued. */
  | { outcome: 'retry'; result: 'failed' | 'refused'; status?: number; error: string; nextAttemptAt: Date }
  /** Given up: every attempt failed, or the subscription is deleted or paused. */
  | {
      outcome: 'dead_lettered';
      reason: 'attempts_exhausted' | 'subscription_deleted' | 'subscription_paused';
      result?: 'failed' | 'refused';
      status?: number;
      error?: string;
    }
  /** This attempt was recorded already (the job ran again after a crash): nothing done. */
  | { outcome: 'already_attempted' };

let defaultFetch: CallbackFetch | undefined;
/** Public https receivers only: what a worker without an explicit fetch may reach. */
const publicOnlyFetch = (): CallbackFetch => {
  defaultFetch ??= createGuardedFetch({ allowlist: parseCallbackAllowlist(undefined) });
  return defaultFetch;
};

/** A short reason for a request that got no answer: never the URL, a secret or an address. */
function requestError(err: unknown): { result: 'failed' | 'refused'; error: string } {
  if (err instanceof CallbackDeliveryRefusedError)
    return { result: 'refused', error: `refused: ${err.reason}` };
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return { result: 'failed', error: 'timeout' };
  const code =
    (err as { code?: unknown; cause?: { code?: unknown } } | null)?.code ??
    (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code))
    return { result: 'failed', error: `network: ${code}` };
  return { result: 'failed', error: 'network error' };
}

/**
 * One attempt of one callback delivery (docs/http-async.md "Callback delivery"): POST the queued
 * body to the subscription's callback URL (checked again by the guarded fetch), signed (HMAC) or
 * with the bearer token, within 10 s. A 2xx delivers; anything else (another status, a timeout, a
 * network error, a URL the guard refuses) is retried per the schedule until the last attempt, then
 * dead-lettered. The attempt's events and the next attempt's job commit together
 * (withLogTransaction); a job run again after that commit does nothing.
 */
export async function processHttpAsyncCallbackJob(
  deps: HttpAsyncWorkerDeps,
  boss: Pick<PgBoss, 'send'>,
  data: HttpAsyncCallbackJobData,
): Promise<CallbackJobOutcome> {
  const now = deps.now ?? (() => new Date());
  const { deliveryId, messageId, subscriptionId, projectId, tenantId, eventType, attempt } = data;
  const log = deps.logger.child({ deliveryId, messageId, subscriptionId, attempt });
  const stream = httpAsyncStream(deliveryId);
  const metadata = { tenantId, projectId, correlationId: messageId };
  const scope = { messageId, projectId, subscriptionId, deliveryId, eventType };

  // What this delivery's stream already holds: this attempt's record (a job run again), and the
  // last attempt's error (for a dead letter without an attempt of its own).
  const attemptedId = httpAsyncEventId('attempted', deliveryId, attempt);
  const deadLetteredId = httpAsyncEventId('dead-lettered', deliveryId, attempt);
  /** This attempt's HttpAsyncCallbackDeadLettered event, with the last failure's error and status if any. */
  const deadLettered = (
    reason: 'attempts_exhausted' | 'subscription_deleted' | 'subscription_paused',
    attempts: number,
    lastFailure: { error?: string | undefined; status?: number | undefined } | undefined,
  ) =>
    toAppend(
      'HttpAsyncCallbackDeadLettered',
      {
        ...scope,
        reason,
        attempts,
        ...(lastFailure?.error === undefined ? {} : { lastError: lastFailure.error }),
        ...(lastFailure?.status === undefined ? {} : { lastStatus: lastFailure.status }),
        deadLetteredAt: now().toISOString(),
      },
      metadata,
      deadLetteredId,
    );
  let last: { error?: string; status?: number } | undefined;
  for await (const event of deps.store.readStream(stream)) {
    if (event.eventId === attemptedId || event.eventId === deadLetteredId)
      return { outcome: 'already_attempted' };
    if (event.type === 'HttpAsyncCallbackAttempted') {
      const d = event.data as { error?: string; status?: number };
      last = {
        ...(d.error === undefined ? {} : { error: d.error }),
        ...(d.status === undefined ? {} : { status: d.status }),
      };
    }
  }

  const subscription = await deps.subscriptions.resolve(subscriptionId);
  if (subscription === null || subscription.status !== 'active') {
    const reason = subscription === null ? 'subscription_deleted' : 'subscription_paused';
    await withLogTransaction(deps.pool, deps.store, (tx) =>
      tx.append(stream, [deadLettered(reason, attempt - 1, last)]),
    );
    log.info({ reason }, 'http async callback dead-lettered');
    return { outcome: 'dead_lettered', reason };
  }

  const body = JSON.stringify(data.payload);
  const attemptedAt = now();
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': CALLBACK_USER_AGENT,
    [EVENT_HEADER]: eventType,
    [DELIVERY_HEADER]: deliveryId,
    [ATTEMPT_HEADER]: String(attempt),
    ...callbackAuthHeaders(
      subscription.authMode === 'hmac'
        ? { mode: 'hmac', secret: subscription.secret }
        : { mode: 'bearer', token: subscription.secret },
      body,
      attemptedAt,
    ),
  };
  const fetchCallback = deps.fetch ?? publicOnlyFetch();
  const started = performance.now();
  let result: 'delivered' | 'failed' | 'refused';
  let status: number | undefined;
  let error: string | undefined;
  try {
    const response = await fetchCallback(subscription.callbackUrl, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS),
    });
    status = response.status;
    // The answer's body is not needed: only its status counts.
    await response.body?.cancel().catch(() => {});
    result = status >= 200 && status <= 299 ? 'delivered' : 'failed';
    if (result === 'failed') error = `HTTP ${status}`;
  } catch (err) {
    ({ result, error } = requestError(err));
  }
  const latencyMs = Math.max(0, Math.round(performance.now() - started));

  const more = result !== 'delivered' && attempt < data.lastAttempt;
  const nextAttemptAt = more
    ? new Date(
        attemptedAt.getTime() +
          latencyMs +
          retryDelayMs(scheduleOf(deps), attempt - data.firstAttempt, deps.random),
      )
    : undefined;
  const attempted = toAppend(
    'HttpAsyncCallbackAttempted',
    {
      ...scope,
      attempt,
      result,
      ...(status === undefined ? {} : { status }),
      latencyMs,
      ...(error === undefined ? {} : { error }),
      attemptedAt: attemptedAt.toISOString(),
      ...(nextAttemptAt === undefined ? {} : { nextAttemptAt: nextAttemptAt.toISOString() }),
    },
    metadata,
    attemptedId,
  );
  await withLogTransaction(deps.pool, deps.store, async (tx) => {
    if (result === 'delivered') {
      await tx.append(stream, [
        attempted,
        toAppend(
          'HttpAsyncCallbackDelivered',
          { ...scope, attempts: attempt, status: status as number, deliveredAt: now().toISOString() },
          metadata,
          httpAsyncEventId('delivered', deliveryId, attempt),
        ),
      ]);
      return;
    }
    if (nextAttemptAt !== undefined) {
      await tx.append(stream, [attempted]);
      const next: HttpAsyncCallbackJobData = { ...data, attempt: attempt + 1 };
      await boss.send(HTTP_ASYNC_CALLBACK_QUEUE, next, {
        id: httpAsyncAttemptJobId(deliveryId, attempt + 1),
        startAfter: nextAttemptAt,
        db: { executeSql: (text, values) => tx.client.query(text, values) },
      });
      return;
    }
    await tx.append(stream, [attempted, deadLettered('attempts_exhausted', attempt, { error, status })]);
  });

  if (result === 'delivered') {
    log.debug({ status, latencyMs }, 'http async callback delivered');
    return { outcome: 'delivered', status: status as number, attempt };
  }
  const failure = {
    result,
    ...(status === undefined ? {} : { status }),
    error: error ?? 'failed',
  };
  if (nextAttemptAt !== undefined) {
    log.info({ ...failure, nextAttemptAt }, 'http async callback attempt failed; retry queued');
    return { outcome: 'retry', ...failure, nextAttemptAt };
  }
  log.warn(failure, 'http async callback dead-lettered: every attempt failed');
  return { outcome: 'dead_lettered', reason: 'attempts_exhausted', ...failure };
}
