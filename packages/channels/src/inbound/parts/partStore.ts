import { randomUUID } from 'node:crypto';
import type { Logger, Pool, PoolClient } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import type { MessagePart, NormalizedMessage } from '../../types.js';
import { enqueueInbound, inTransaction } from '../enqueueInbound.js';
import { joinParts } from './joinParts.js';

/**
 * Default of CHANNEL_MESSAGE_PART_TIMEOUT_SECONDS: how long the parts of a message delivered in
 * pieces wait for the others before what came is released as one message.
 */
export const DEFAULT_PART_TIMEOUT_SECONDS = 120;
/**
 * How long released parts are kept: longer than Vonage retries a webhook (24 h), so a part
 * retried after its message was answered is still a duplicate.
 */
export const PART_RETENTION_SECONDS = 48 * 3600;

export type PartOutcome =
  /** This part was received before (a platform retry): nothing changes. */
  | { kind: 'duplicate' }
  /** Kept; the message waits for its other parts. */
  | { kind: 'waiting' }
  /** The last part: the joined message was queued (`queued` false: it already was). */
  | { kind: 'joined'; message: NormalizedMessage; queued: boolean };

export interface PartTarget {
  id: string;
  channelType: string;
}

/**
 * The parts of one reference of one sender are handled one at a time (a transaction-scoped
 * advisory lock): two parts arriving at once cannot both miss the other and leave the message
 * waiting for the timeout.
 */
const lockReference = (client: PoolClient, connectionId: string, sessionKey: string, group: string) =>
  client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
    JSON.stringify(['channel-parts', connectionId, sessionKey, group]),
  ]);

interface PartRow {
  part_index: number;
  message: NormalizedMessage;
}

/** The open group of a reference this part belongs to: same total, this index not yet in it. */
async function openGroup(
  client: PoolClient,
  connectionId: string,
  message: NormalizedMessage,
  part: MessagePart,
) {
  const { rows } = await client.query<{ group_id: string }>(
    `select group_id from channel_inbound_parts
     where connection_id = $1 and external_session_key = $2 and part_group = $3 and part_total = $4
       and released_at is null
     group by group_id having bool_and(part_index <> $5)
     order by min(received_at) desc limit 1`,
    [connectionId, message.externalSessionKey, part.group, part.total, part.index],
  );
  return rows[0]?.group_id ?? randomUUID();
}

/**
 * Keeps one part (a message with `part`) and, when it completes its message, marks the parts
 * released and queues the joined message, all in one transaction: a crash leaves either the part
 * unrecorded (the platform retries it) or the joined message queued.
 */
export async function acceptPart(
  pool: Pool,
  boss: PgBoss,
  connection: PartTarget,
  message: NormalizedMessage & { part: MessagePart },
  receivedAt: Date,
): Promise<PartOutcome> {
  const { part } = message;
  return inTransaction(pool, async (client) => {
    await lockReference(client, connection.id, message.externalSessionKey, part.group);
    const seen = await client.query(
      'select 1 from channel_inbound_parts where connection_id = $1 and external_message_id = $2',
      [connection.id, message.externalMessageId],
    );
    if ((seen.rowCount ?? 0) > 0) return { kind: 'duplicate' };
    const groupId = await openGroup(client, connection.id, message, part);
    await client.query(
      `insert into channel_inbound_parts (connection_id, external_message_id, external_session_key, part_group,
         group_id, part_index, part_total, channel_type, message)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        connection.id,
        message.externalMessageId,
        message.externalSessionKey,
        part.group,
        groupId,
        part.index,
        part.total,
        connection.channelType,
        JSON.stringify(message),
      ],
    );
    const { rows } = await client.query<PartRow>(
      'select part_index, message from channel_inbound_parts where group_id = $1 order by part_index',
      [groupId],
    );
    if (rows.length < part.total) return { kind: 'waiting' };
    await client.query('update channel_inbound_parts set released_at = now() where group_id = $1', [groupId]);
    const joined = joinParts(
      rows.map((row) => ({ index: row.part_index, message: row.message })),
      part.total,
    );
    const queued = await enqueueInbound(client, boss, connection, joined, receivedAt);
    return { kind: 'joined', message: joined, queued };
  });
}

export interface ReleasePartsOptions {
  pool: Pool;
  boss: PgBoss;
  logger: Pick<Logger, 'info'>;
  /** Parts whose group's first part came longer ago than this are released. */
  timeoutSeconds: number;
  /** Released parts older than this are deleted (default PART_RETENTION_SECONDS). */
  retentionSeconds?: number;
  now?: () => Date;
}

/**
 * The part timeout sweep: each message whose first part came more than `timeoutSeconds` ago and
 * is still incomplete is released as is, its parts joined in order with the gaps left out
 * (`parts.complete: false` in its metadata), so the agent answers what the user did send. A part
 * arriving after its message was released starts a new message of its own. Returns how many
 * messages were queued.
 */
export async function releaseExpiredParts(options: ReleasePartsOptions): Promise<number> {
  const { pool, boss } = options;
  const now = options.now ?? (() => new Date());
  const { rows: groups } = await pool.query<{
    group_id: string;
    connection_id: string;
    external_session_key: string;
    part_group: string;
    channel_type: string;
  }>(
    `select group_id, connection_id, external_session_key, part_group, min(channel_type) as channel_type
     from channel_inbound_parts where released_at is null
     group by group_id, connection_id, external_session_key, part_group
     having min(received_at) <= now() - make_interval(secs => $1)
     limit 100`,
    [options.timeoutSeconds],
  );
  let released = 0;
  for (const group of groups) {
    const queued = await inTransaction(pool, async (client) => {
      await lockReference(client, group.connection_id, group.external_session_key, group.part_group);
      const { rows } = await client.query<PartRow & { part_total: number }>(
        `update channel_inbound_parts set released_at = now()
         where group_id = $1 and released_at is null returning part_index, part_total, message`,
        [group.group_id],
      );
      const total = rows[0]?.part_total;
      if (total === undefined) return false; // completed or released meanwhile
      const joined = joinParts(
        rows.map((row) => ({ index: row.part_index, message: row.message })),
        total,
      );
      const target = { id: group.connection_id, channelType: group.channel_type };
      return enqueueInbound(client, boss, target, joined, now());
    });
    if (queued) released += 1;
  }
  if (released > 0)
    options.logger.info({ released }, 'incomplete multipart messages released at the part timeout');
  await pool.query(
    'delete from channel_inbound_parts where released_at < now() - make_interval(secs => $1)',
    [options.retentionSeconds ?? PART_RETENTION_SECONDS],
  );
  return released;
}
