import type { EventStore } from '@parley/eventstore';
import { withLogTransaction } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import type { CallbackTurnOutcome } from '../httpAsync/callbacks.js';
import type { SubscriptionStore } from '../httpAsync/subscriptionStore.js';
import { turnCallbacks } from '../httpAsync/turnCallbacks.js';
import { sendJobId } from '../inbound/ids.js';
import { CHANNEL_SEND_QUEUE, notifyChannelJob, type SendJobData } from '../inbound/jobs.js';
import { withClient } from '../inbound/processor.js';
import type { ResolvedConnection } from '../types.js';
import { type ResumeOrigin, resumeOriginSchema } from './resumeOrigin.js';

/** The resumed turn, as the runtime answered it (ResumeResult), or its failure. */
export type ResumedTurn =
  | {
      kind: 'replied';
      sessionId: string;
      replyMessageId: string;
      text: string;
      actionSet?: SendJobData['reply']['actionSet'];
      media?: Array<{ url: string; mimeType: string; name?: string; caption?: string }>;
      usedFallback: boolean;
      isLlmGenerated: boolean;
      llmCalls: number;
      ended: boolean;
    }
  | { kind: 'failed'; sessionId: string };

export interface ResumeDeliveryDeps {
  pool: Pool;
  store: EventStore;
  /** Only `send` (with the transaction's client). */
  boss: Pick<PgBoss, 'send'>;
  connections: { resolveById(id: string): Promise<ResolvedConnection | null> };
  subscriptions: Pick<SubscriptionStore, 'resolve'>;
  retryScheduleSeconds?: readonly number[];
  logger: Logger;
  now?: () => Date;
}

/**
 * Delivers a resumed turn's reply where its turn came from (the suspension's origin): a channel's
 * send job (id from the reply, as the inbound job would have queued it), or the HTTP async
 * message's delayed callbacks (agent.response, agent.media, agent.status `completed`; `failed`
 * when the resumed turn failed). An origin it cannot read, a deleted connection or subscription:
 * nothing is delivered (the reply stays in the session's transcript), logged. Idempotent: job and
 * delivery ids derive from the reply and the message.
 */
export async function deliverResumedReply(
  deps: ResumeDeliveryDeps,
  origin: unknown,
  turn: ResumedTurn,
): Promise<'queued' | 'nowhere'> {
  const parsed = resumeOriginSchema.safeParse(origin);
  if (!parsed.success) {
    deps.logger.info({ sessionId: turn.sessionId }, 'resumed turn: no channel to deliver the reply to');
    return 'nowhere';
  }
  const where: ResumeOrigin = parsed.data;
  switch (where.kind) {
    case 'channel':
      return deliverOnChannel(deps, where, turn);
    case 'http_async':
      return deliverOnHttpAsync(deps, where, turn);
    default: {
      const exhaustive: never = where;
      throw new Error(`unknown resume origin ${JSON.stringify(exhaustive)}`);
    }
  }
}

async function deliverOnChannel(
  deps: ResumeDeliveryDeps,
  where: Extract<ResumeOrigin, { kind: 'channel' }>,
  turn: ResumedTurn,
): Promise<'queued' | 'nowhere'> {
  const connection = await deps.connections.resolveById(where.connectionId);
  if (turn.kind === 'failed' || connection === null) return 'nowhere';
  const send: SendJobData = {
    connectionId: where.connectionId,
    channelType: where.channelType,
    tenantId: connection.tenantId,
    projectId: connection.projectId,
    sessionId: turn.sessionId,
    replyMessageId: turn.replyMessageId,
    externalSessionKey: where.externalSessionKey,
    metadata: where.metadata,
    reply: { text: turn.text, ...(turn.actionSet === undefined ? {} : { actionSet: turn.actionSet }) },
  };
  await withClient(deps.pool, async (client) => {
    await client.query('begin');
    try {
      await deps.boss.send(CHANNEL_SEND_QUEUE, send, {
        id: sendJobId(where.connectionId, turn.replyMessageId),
        db: { executeSql: (text, values) => client.query(text, values) },
      });
      await notifyChannelJob(client, CHANNEL_SEND_QUEUE);
      await client.query('commit');
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    }
  });
  return 'queued';
}

async function deliverOnHttpAsync(
  deps: ResumeDeliveryDeps,
  where: Extract<ResumeOrigin, { kind: 'http_async' }>,
  turn: ResumedTurn,
): Promise<'queued' | 'nowhere'> {
  const now = deps.now ?? (() => new Date());
  const subscription = await deps.subscriptions.resolve(where.subscriptionId);
  if (subscription === null) return 'nowhere';
  const callbacks = turnCallbacks(deps.boss, where, subscription.events, {
    now,
    ...(deps.retryScheduleSeconds === undefined ? {} : { retryScheduleSeconds: deps.retryScheduleSeconds }),
  });
  const outcome: CallbackTurnOutcome =
    turn.kind === 'failed'
      ? { kind: 'failed', sessionId: turn.sessionId }
      : {
          kind: 'replied',
          sessionId: turn.sessionId,
          created: false,
          text: turn.text,
          usedFallback: turn.usedFallback,
          isLlmGenerated: turn.isLlmGenerated,
          llmCalls: turn.llmCalls,
          ended: turn.ended,
        };
  await withLogTransaction(deps.pool, deps.store, async (tx) => {
    await callbacks.response(tx, outcome);
    if (turn.kind === 'replied') await callbacks.media(tx, turn.sessionId, turn.media ?? []);
    await callbacks.status(
      tx,
      turn.kind === 'failed'
        ? { status: 'failed', sessionId: turn.sessionId, occurredAt: now() }
        : { status: 'completed', sessionId: turn.sessionId, occurredAt: now(), sessionEnded: turn.ended },
    );
  });
  return 'queued';
}
