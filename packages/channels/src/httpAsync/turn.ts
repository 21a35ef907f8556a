import { httpAsyncStream, toAppend } from '@parley/events';
import { type EventStore, logTransactionOn, withLogTransactionOn } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import {
  type ChannelTurnResult,
  type ChannelTurnRunner,
  isFinalTurnError,
  mappedSession,
  recordChannelTurn,
  runChannelTurn,
  withClient,
  withConversationLock,
} from '../inbound/processor.js';
import { httpAsyncOrigin } from '../resume/resumeOrigin.js';
import type { NormalizedMessage, ResolvedConnection } from '../types.js';
import type { CallbackTurnOutcome } from './callbacks.js';
import {
  DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
  type HttpAsyncTurnJobData,
  httpAsyncEventId,
  httpAsyncTurnJobId,
} from './jobs.js';
import type { SubscriptionStore } from './subscriptionStore.js';
import { turnCallbacks } from './turnCallbacks.js';

/** The fetch a callback attempt uses (createGuardedFetch in production: it re-checks the URL). */
export type CallbackFetch = (url: string, init: RequestInit) => Promise<Response>;

/** What the HTTP async jobs need (the worker's parts). */
export interface HttpAsyncWorkerDeps {
  pool: Pool;
  store: EventStore;
  logger: Logger;
  /** Only `resolve` (the subscription with its secret; null when deleted). */
  subscriptions: Pick<SubscriptionStore, 'resolve'>;
  /** runtime.runTurn (@parley/runtime). */
  runTurn: ChannelTurnRunner;
  /**
   * The callback request. Default: createGuardedFetch without an allowlist (public https only).
   * Production passes one bound to HTTP_ASYNC_CALLBACK_ALLOWLIST.
   */
  fetch?: CallbackFetch;
  /** Delays before attempt 2, 3, ... (seconds; fractions allowed here). Default DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS. */
  retryScheduleSeconds?: readonly number[];
  /** Time limit of one callback request, ms (default 10,000). */
  callbackTimeoutMs?: number;
  /** The jitter's randomness, [0, 1). */
  random?: () => number;
  now?: () => Date;
}

export const scheduleOf = (deps: Pick<HttpAsyncWorkerDeps, 'retryScheduleSeconds'>): readonly number[] =>
  deps.retryScheduleSeconds ?? DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS;

export type HttpAsyncTurnOutcome = 'answered' | 'failed' | 'already_answered' | 'suspended';

/**
 * One accepted message (spec 001 §4.9): run the agent's turn in the conversation's session and queue
 * the callbacks the subscription asked for, in the transaction that records the turn:
 * agent.status `processing` before the turn; agent.response and agent.status `completed` after it,
 * or, when the turn failed for good, an agent.response with `outcome.status: 'error'` and an
 * agent.status `failed`. A job run again after the turn was recorded queues nothing new (the turn
 * never runs twice; delivery and job ids derive from the message). `attempt` (pg-boss's retry
 * count) makes the last try's failure final whatever the error, so the caller always hears back.
 */
export async function processHttpAsyncTurnJob(
  deps: HttpAsyncWorkerDeps,
  boss: Pick<PgBoss, 'send'>,
  data: HttpAsyncTurnJobData,
  attempt?: { retryCount: number; retryLimit: number },
): Promise<HttpAsyncTurnOutcome> {
  const now = deps.now ?? (() => new Date());
  const { messageId, subscriptionId, projectId, tenantId, sessionKey } = data;
  const log = deps.logger.child({ messageId, subscriptionId });
  const metadata = { tenantId, projectId, correlationId: messageId };

  // The acceptance is in the log already on PostgreSQL (the same id: a no-op); on another log the
  // API appended it after its commit, and a crash in between lost it.
  await deps.store.append(httpAsyncStream(messageId), [
    toAppend(
      'HttpAsyncMessageAccepted',
      {
        messageId,
        projectId,
        subscriptionId,
        route: data.route,
        sessionKey,
        newConversation: data.newConversation,
        text: data.text,
        metadata: data.metadata,
        acceptedAt: data.acceptedAt,
      },
      metadata,
      httpAsyncEventId('accepted', messageId, 0),
    ),
  ]);

  const subscription = await deps.subscriptions.resolve(subscriptionId);
  if (subscription === null) log.info('webhook subscription deleted: the turn runs, no callback is queued');
  // A paused subscription still gets its callbacks queued: the callback job dead-letters them when
  // due (redeliverable once it is active again).
  const callbacks = turnCallbacks(boss, data, subscription?.events ?? null, {
    now,
    ...(deps.retryScheduleSeconds === undefined ? {} : { retryScheduleSeconds: deps.retryScheduleSeconds }),
  });

  // The pseudo-connection the channel pipeline runs turns with: the subscription is the connection.
  const connection: ResolvedConnection = {
    id: subscriptionId,
    tenantId,
    projectId,
    channelType: 'http_async',
    externalIdentifier: subscriptionId,
    agentName: null,
    deploymentId: null,
    active: true,
    status: 'active',
    credentials: {},
    settings: {},
  };
  const normalized: NormalizedMessage = {
    externalMessageId: messageId,
    externalSessionKey: sessionKey,
    text: data.text,
    metadata: data.metadata,
    timestamp: data.acceptedAt,
  };

  const { pool } = deps;
  const locked = await withConversationLock(pool, subscriptionId, sessionKey, async () => {
    // The submit inserted the message's row; a job queued without one (a test, an older API) gets it here.
    await pool.query(
      `insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id)
       values ($1, $2, $3, $4) on conflict (connection_id, external_message_id) do nothing`,
      [subscriptionId, messageId, sessionKey, httpAsyncTurnJobId(subscriptionId, messageId)],
    );
    const row = await pool.query<{ processed: boolean }>(
      `select processed_at is not null as processed from channel_inbound_messages
       where connection_id = $1 and external_message_id = $2`,
      [subscriptionId, messageId],
    );
    if (row.rows[0]?.processed === true) {
      log.debug('http async message already answered');
      return 'already_answered' as const;
    }
    const knownSession = await mappedSession(pool, subscriptionId, sessionKey);

    await withClient(pool, (client) =>
      withLogTransactionOn(client, deps.store, (tx) =>
        callbacks.status(tx, { status: 'processing', sessionId: knownSession, occurredAt: now() }),
      ),
    );

    let result: ChannelTurnResult;
    try {
      result = await runChannelTurn(pool, deps.runTurn, connection, normalized, {
        mapped: knownSession,
        origin: httpAsyncOrigin(data),
      });
    } catch (err) {
      const lastTry = attempt !== undefined && attempt.retryCount >= attempt.retryLimit;
      if (!isFinalTurnError(err) && !lastTry) throw err;
      log.warn(
        { error: err instanceof Error ? err.name : 'unknown', final: isFinalTurnError(err) },
        'http async message not answered: the turn failed',
      );
      const failed: CallbackTurnOutcome = { kind: 'failed', sessionId: knownSession };
      await withClient(pool, (lockClient) =>
        logTransactionOn(lockClient, deps.store, (tx) =>
          recordChannelTurn(lockClient, subscriptionId, normalized, null, {
            within: async () => {
              await callbacks.response(tx, failed);
              await callbacks.status(tx, { status: 'failed', sessionId: knownSession, occurredAt: now() });
            },
          }),
        ),
      );
      return 'failed' as const;
    }

    if (result.suspended) {
      // A tool suspended the turn: agent.response comes when its callback (or its timeout) resumes
      // it (a delayed callback, spec 001 §4.9); the message stays `processing` until then.
      await withClient(pool, (client) => recordChannelTurn(client, subscriptionId, normalized, result));
      return 'suspended' as const;
    }
    const replied: CallbackTurnOutcome = {
      kind: 'replied',
      sessionId: result.sessionId,
      created: result.created ?? result.sessionId !== knownSession,
      text: result.reply.text,
      usedFallback: result.reply.usedFallback ?? false,
      isLlmGenerated: result.reply.isLlmGenerated ?? !(result.reply.usedFallback ?? false),
      llmCalls: result.llmCalls ?? 0,
      ended: result.ended !== undefined && result.ended !== null,
    };
    await withClient(pool, (lockClient) =>
      logTransactionOn(lockClient, deps.store, (tx) =>
        recordChannelTurn(lockClient, subscriptionId, normalized, result, {
          within: async () => {
            await callbacks.response(tx, replied);
            await callbacks.media(tx, result.sessionId, result.reply.media ?? []);
            await callbacks.status(tx, {
              status: 'completed',
              sessionId: result.sessionId,
              occurredAt: now(),
              sessionEnded: replied.kind === 'replied' && replied.ended,
            });
          },
        }),
      ),
    );
    return 'answered' as const;
  });
  if (!locked.locked) throw new Error('conversation lock not taken'); // unreachable without a deadline
  return locked.value;
}
