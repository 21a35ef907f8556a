import {
  type CoalescedNotify,
  isMissingRelation,
  ParleyError,
  PG_BOSS_QUEUE_NOT_FOUND,
  type PoolClient,
} from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import type { NormalizedMessage } from '../types.js';
import { inboundJobId } from './ids.js';
import {
  JobNotInsertedError,
  type JobStatement,
  type StatementRunner,
  sendJobInStatement,
} from './jobInStatement.js';
import { CHANNEL_INBOUND_QUEUE, CHANNEL_JOBS_NOTIFY_CHANNEL, type InboundJobData } from './jobs.js';

/** The queue is missing (the worker never started): the webhook is answered 503 so the platform retries. */
export class InboundQueueUnavailableError extends ParleyError {
  override readonly name = 'InboundQueueUnavailableError';
  constructor(message: string) {
    super('INBOUND_QUEUE_UNAVAILABLE', 500, message);
  }
}

const isQueueMissing = (err: unknown): boolean =>
  (err as { code?: unknown } | null)?.code === PG_BOSS_QUEUE_NOT_FOUND;

/**
 * Inserts a message's dedupe row and its inbound job in one statement (one round trip, atomic
 * without a transaction; inside the caller's when `runner` is its client): the job and the
 * workers' wake-up only when the row was inserted. False: the message was already queued (a
 * duplicate, nothing written). A missing queue writes nothing and throws InboundQueueUnavailableError.
 *
 * The wake-up: with `wakeups`, after the statement (which must then commit on its own: `runner`
 * the pool), coalesced with the process's others; without, a NOTIFY in the statement, delivered
 * when the caller's transaction commits.
 */
export async function enqueueInbound(
  runner: StatementRunner,
  boss: PgBoss,
  connection: { id: string; channelType: string },
  message: NormalizedMessage,
  receivedAt: Date,
  wakeups?: Pick<CoalescedNotify, 'notify'>,
): Promise<boolean> {
  const jobId = inboundJobId(connection.id, message.externalMessageId);
  const data: InboundJobData = {
    connectionId: connection.id,
    channelType: connection.channelType,
    message,
    receivedAt: receivedAt.toISOString(),
  };
  const unavailable = () =>
    new InboundQueueUnavailableError(`the ${CHANNEL_INBOUND_QUEUE} queue does not exist`);
  const row = await sendJobInStatement<{ inserted: number }>(
    runner,
    boss,
    { queue: CHANNEL_INBOUND_QUEUE, data, options: { id: jobId } },
    dedupeStatement(connection, message, jobId, wakeups === undefined),
  ).catch((err: unknown) => {
    // No queue, or no pg-boss schema at all: the worker, which creates them, never ran. A job id
    // already taken for a new message: as before, the platform retries later.
    if (isQueueMissing(err) || isMissingRelation(err) || err instanceof JobNotInsertedError)
      throw unavailable();
    throw err;
  });
  if (row.inserted === 1) wakeups?.notify(CHANNEL_INBOUND_QUEUE);
  return row.inserted === 1;
}

/** The dedupe row (`on conflict do nothing`); the job's condition is that it was inserted. */
function dedupeStatement(
  connection: { id: string },
  message: NormalizedMessage,
  jobId: string,
  notifyInStatement: boolean,
): JobStatement {
  const values = [connection.id, message.externalMessageId, message.externalSessionKey, jobId];
  const inserted = `inserted as (
       insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id)
       values ($2, $3, $4, $5) on conflict do nothing returning 1)`;
  const when = 'exists (select 1 from inserted)';
  if (!notifyInStatement) {
    return { ctes: inserted, when, select: '(select count(*) from inserted)::int as inserted', values };
  }
  return {
    // The notification is delivered at commit, and only for a new message.
    ctes: `${inserted},
     notified as (select pg_notify($6, $7) from inserted)`,
    when,
    select:
      '(select count(*) from inserted)::int as inserted, (select count(*) from notified)::int as notified',
    values: [...values, CHANNEL_JOBS_NOTIFY_CHANNEL, CHANNEL_INBOUND_QUEUE],
  };
}

/** Runs `fn` in a transaction on a client of the pool: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(
  pool: { connect(): Promise<PoolClient> },
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
