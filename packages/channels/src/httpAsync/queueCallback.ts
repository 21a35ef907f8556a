import { httpAsyncStream, toAppend } from '@parley/events';
import type { LogTransaction } from '@parley/eventstore';
import { isMissingRelation, nullIfQueueMissing, ParleyError, pgBossQueueExists } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { notifyChannelJob } from '../inbound/jobs.js';
import {
  HTTP_ASYNC_CALLBACK_QUEUE,
  type HttpAsyncCallbackJobData,
  httpAsyncAttemptJobId,
  httpAsyncEventId,
} from './jobs.js';

/** Thrown when a job's queue does not exist (the worker creates the queues when it starts). */
export class QueueMissingError extends ParleyError {
  override readonly name = 'QueueMissingError';
  constructor(readonly queue: string) {
    super(
      'QUEUE_MISSING',
      500,
      `the ${queue} queue does not exist: start the worker once (it creates the queues)`,
    );
  }
}

/** QueueMissingError unless pg-boss (schema `pgboss`) has the queue. */
export async function assertQueueExists(tx: Pick<LogTransaction, 'client'>, queue: string): Promise<void> {
  if (!(await pgBossQueueExists(tx.client, queue))) throw new QueueMissingError(queue);
}

/** The job data of the first attempt, without the attempt numbers this function derives. */
export type QueueCallbackInput = Omit<HttpAsyncCallbackJobData, 'attempt' | 'lastAttempt'>;

export interface QueueCallbackDeps {
  /** Only `send` is used (pg-boss's `db` option on the transaction's client): no started instance needed. */
  boss: Pick<PgBoss, 'send'>;
  /** Attempts per queueing: the retry schedule's length plus one. */
  maxAttempts: number;
  now?: () => Date;
}

/**
 * Queues a callback delivery in the caller's transaction: HttpAsyncCallbackQueued (with the body
 * every attempt will send) and the job of its first attempt, announced to the workers at commit.
 * Idempotent: the event id and the job id derive from (delivery, first attempt), so running it
 * again (a retried turn job, a repeated redelivery request) queues nothing new.
 * Returns false when the job already existed.
 */
export async function queueHttpAsyncCallback(
  tx: LogTransaction,
  deps: QueueCallbackDeps,
  input: QueueCallbackInput,
): Promise<boolean> {
  const now = deps.now ?? (() => new Date());
  const lastAttempt = input.firstAttempt + deps.maxAttempts - 1;
  const { deliveryId, messageId, subscriptionId, projectId, tenantId, eventType } = input;
  await tx.append(httpAsyncStream(deliveryId), [
    toAppend(
      'HttpAsyncCallbackQueued',
      {
        messageId,
        projectId,
        subscriptionId,
        deliveryId,
        eventType,
        ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
        payload: input.payload,
        test: input.test,
        firstAttempt: input.firstAttempt,
        maxAttempts: deps.maxAttempts,
        queuedAt: now().toISOString(),
      },
      { tenantId, projectId, correlationId: messageId },
      httpAsyncEventId('queued', deliveryId, input.firstAttempt),
    ),
  ]);
  const data: HttpAsyncCallbackJobData = {
    deliveryId,
    messageId,
    subscriptionId,
    projectId,
    tenantId,
    eventType,
    ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
    payload: input.payload,
    test: input.test,
    firstAttempt: input.firstAttempt,
    attempt: input.firstAttempt,
    lastAttempt,
  };
  const id = await nullIfQueueMissing(
    deps.boss.send(HTTP_ASYNC_CALLBACK_QUEUE, data, {
      id: httpAsyncAttemptJobId(deliveryId, input.firstAttempt),
      db: { executeSql: (text, values) => tx.client.query(text, values) },
    }),
  ).catch((err: unknown) => {
    // No pg-boss schema at all: the worker, which creates it with the queues, never ran.
    if (isMissingRelation(err)) throw new QueueMissingError(HTTP_ASYNC_CALLBACK_QUEUE);
    throw err;
  });
  if (id === null) {
    // pg-boss answers null for a job id it has (a repeat: fine) and for a queue that does not exist
    // (the worker, which creates the queues, never ran: the transaction must not commit).
    await assertQueueExists(tx, HTTP_ASYNC_CALLBACK_QUEUE);
    return false;
  }
  await notifyChannelJob(tx.client, HTTP_ASYNC_CALLBACK_QUEUE);
  return true;
}
