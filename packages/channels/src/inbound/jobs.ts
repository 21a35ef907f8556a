import { actionSetSchema } from '@parley/events';
import {
  type CoalescedNotify,
  type CoalescedNotifyOptions,
  createCoalescedNotify,
  defineJob,
  ensureQueue,
  type JobPayload,
  type Logger,
  PG_BOSS_SCHEMA,
  type Pool,
} from '@parley/platform';
import { PgBoss } from 'pg-boss';
import { z } from 'zod';

/** pg-boss's tables live in this schema of the Parley database (shared with the worker's other queues). */
export { PG_BOSS_SCHEMA };
/** One normalized inbound message to answer: run the agent's turn, then enqueue the reply's send. */
export const CHANNEL_INBOUND_QUEUE = 'channel-inbound';
/** One reply to deliver on the channel, retried with backoff. */
export const CHANNEL_SEND_QUEUE = 'channel-send';

/** NOTIFY channel on which a committed channel job is announced (payload: the queue name). */
export const CHANNEL_JOBS_NOTIFY_CHANNEL = 'parley_channel_jobs';

/**
 * Announces a job inserted in the caller's transaction: PostgreSQL delivers the notification at
 * commit (never for a rollback), and listening workers fetch at once instead of at their next poll.
 */
export const notifyChannelJob = (
  client: { query(text: string, values?: unknown[]): Promise<unknown> },
  queue: string,
): Promise<unknown> => client.query('select pg_notify($1, $2)', [CHANNEL_JOBS_NOTIFY_CHANNEL, queue]);

/**
 * Announces jobs committed outside any transaction of the caller's (one statement, autocommitted):
 * `notify(queue)` after the commit, coalesced per process (createCoalescedNotify: not in the job's
 * own statement, where NOTIFY would make every such commit wait for the others' WAL flushes).
 */
export const createChannelJobWakeups = (
  pool: CoalescedNotifyOptions['pool'],
  logger: Logger,
): CoalescedNotify => createCoalescedNotify({ pool, channel: CHANNEL_JOBS_NOTIFY_CHANNEL, logger });

const record = z.record(z.string(), z.unknown());

/** A NormalizedMessage (types.ts) as a job carries it (the fields the processor reads). */
const normalizedMessageSchema = z.object({
  externalMessageId: z.string(),
  externalSessionKey: z.string(),
  text: z.string(),
  metadata: record,
  timestamp: z.string(),
  actionEvent: z
    .looseObject({
      actionId: z.string(),
      value: z.string(),
      type: z.enum(['button', 'select', 'text_input']),
    })
    .optional(),
  channelUserId: z.string().optional(),
  messageMetadata: record.optional(),
  /** A remote handoff's conversation (A2A `message.metadata.history`), for the receiving model. */
  forwardedHistory: z.array(z.object({ role: z.enum(['user', 'agent']), text: z.string() })).optional(),
});

/** A channel-inbound job: one accepted webhook message of a connection. */
export const channelInboundJob = defineJob(
  CHANNEL_INBOUND_QUEUE,
  z.object({
    connectionId: z.string().min(1),
    channelType: z.string().min(1),
    message: normalizedMessageSchema,
    /** When the webhook was accepted (ISO 8601). */
    receivedAt: z.string(),
  }),
);
export type InboundJobData = JobPayload<typeof channelInboundJob>;

/** A channel-send job: one reply to deliver on the connection's channel. */
export const channelSendJob = defineJob(
  CHANNEL_SEND_QUEUE,
  z.object({
    connectionId: z.string().min(1),
    channelType: z.string().min(1),
    tenantId: z.string().min(1),
    projectId: z.string().min(1),
    sessionId: z.string().min(1),
    /** The reply's AgentReplied.messageId: the send's idempotency key. */
    replyMessageId: z.string().min(1),
    externalSessionKey: z.string(),
    /** The inbound message's metadata (chat id, thread ts...), for the adapter to address the reply. */
    metadata: record,
    /** An OutgoingReply (types.ts). */
    reply: z.object({
      text: z.string(),
      actionSet: actionSetSchema.optional(),
      richContent: record.optional(),
    }),
  }),
);
export type SendJobData = JobPayload<typeof channelSendJob>;

export interface ChannelQueueOptions {
  /** Send attempts after the first (pg-boss retryLimit of the send queue). */
  sendRetryLimit: number;
  /** Seconds before the first send retry; doubled each time with jitter (pg-boss retryBackoff). */
  sendRetryDelaySeconds: number;
  /** Inbound job retries (a turn that failed before recording its reply, e.g. the database was down). */
  inboundRetryLimit: number;
  /** A job still active after this long is taken to be lost (worker died) and retried. */
  expireInSeconds: number;
  /**
   * How long the parts of a message delivered in pieces (a concatenated SMS) wait for the others
   * before what came is released as one message (CHANNEL_MESSAGE_PART_TIMEOUT_SECONDS; default
   * DEFAULT_PART_TIMEOUT_SECONDS).
   */
  partTimeoutSeconds?: number;
}

export const DEFAULT_CHANNEL_QUEUE_OPTIONS: ChannelQueueOptions = {
  sendRetryLimit: 5,
  sendRetryDelaySeconds: 5,
  inboundRetryLimit: 3,
  expireInSeconds: 5 * 60,
};

/**
 * A pg-boss instance on an existing pool (no second pool), schema `pgboss`. Sending needs no
 * `start()`; the worker starts its own instance, which creates the schema and the queues.
 */
export function createChannelJobQueue(pool: Pool): PgBoss {
  return new PgBoss({
    db: { executeSql: (text, values) => pool.query(text, values) },
    schema: PG_BOSS_SCHEMA,
  });
}

/** Creates (or updates) both channel queues with their retry policies. */
export async function ensureChannelQueues(boss: PgBoss, options: ChannelQueueOptions): Promise<void> {
  await ensureQueue(boss, CHANNEL_INBOUND_QUEUE, {
    retryLimit: options.inboundRetryLimit,
    retryDelay: 2,
    retryBackoff: true,
    expireInSeconds: options.expireInSeconds,
  });
  await ensureQueue(boss, CHANNEL_SEND_QUEUE, {
    retryLimit: options.sendRetryLimit,
    retryDelay: options.sendRetryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: options.expireInSeconds,
  });
}
