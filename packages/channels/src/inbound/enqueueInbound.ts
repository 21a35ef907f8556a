import { isMissingRelation, nullIfQueueMissing, ParleyError, type PoolClient } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import type { NormalizedMessage } from '../types.js';
import { inboundJobId } from './ids.js';
import { CHANNEL_INBOUND_QUEUE, CHANNEL_JOBS_NOTIFY_CHANNEL, type InboundJobData } from './jobs.js';

/** The queue is missing (the worker never started): the webhook is answered 503 so the platform retries. */
export class InboundQueueUnavailableError extends ParleyError {
  override readonly name = 'InboundQueueUnavailableError';
  constructor(message: string) {
    super('INBOUND_QUEUE_UNAVAILABLE', 500, message);
  }
}

/**
 * Inserts a message's dedupe row and its inbound job on the caller's client, inside the caller's
 * transaction (both commit or neither does). False: the message was already queued (a duplicate).
 */
export async function enqueueInbound(
  client: PoolClient,
  boss: PgBoss,
  connection: { id: string; channelType: string },
  message: NormalizedMessage,
  receivedAt: Date,
): Promise<boolean> {
  const jobId = inboundJobId(connection.id, message.externalMessageId);
  // The dedupe row and the workers' wake-up in one statement (the notification is delivered at
  // commit, so a duplicate, rolled back, wakes nobody).
  const inserted = await client.query<{ inserted: number }>(
    `with inserted as (
       insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id)
       values ($1, $2, $3, $4) on conflict do nothing returning 1)
     select (select count(*) from inserted)::int as inserted, pg_notify($5, $6)::text as notified`,
    [
      connection.id,
      message.externalMessageId,
      message.externalSessionKey,
      jobId,
      CHANNEL_JOBS_NOTIFY_CHANNEL,
      CHANNEL_INBOUND_QUEUE,
    ],
  );
  if (inserted.rows[0]?.inserted !== 1) return false;
  const data: InboundJobData = {
    connectionId: connection.id,
    channelType: connection.channelType,
    message,
    receivedAt: receivedAt.toISOString(),
  };
  const sent = await nullIfQueueMissing(
    boss.send(CHANNEL_INBOUND_QUEUE, data, {
      id: jobId,
      db: { executeSql: (text, values) => client.query(text, values) },
    }),
  ).catch((err: unknown) => {
    // No pg-boss schema at all: the worker, which creates it with the queues, never ran.
    if (isMissingRelation(err)) {
      throw new InboundQueueUnavailableError(`the ${CHANNEL_INBOUND_QUEUE} queue does not exist`);
    }
    throw err;
  });
  if (sent === null)
    throw new InboundQueueUnavailableError(`the ${CHANNEL_INBOUND_QUEUE} queue does not exist`);
  return true;
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
