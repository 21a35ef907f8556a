import type { Pool } from '@parley/platform';
import { derivedUuid } from '../inbound/ids.js';
import type { A2aPushConfig } from './a2aParams.js';
import type { A2aArtifact, A2aMessage, A2aTask, A2aTaskState } from './a2aProtocol.js';

/** A task as stored (table a2a_tasks, set `channels-a2a`). */
export interface StoredA2aTask {
  id: string;
  connectionId: string;
  messageId: string;
  contextId: string;
  state: A2aTaskState;
  requestMessage: A2aMessage;
  replyMessage: A2aMessage | null;
  artifacts: A2aArtifact[];
  push: A2aPushConfig | null;
  pushedAt: Date | null;
  updatedAt: Date;
}

export interface NewA2aTask {
  connectionId: string;
  messageId: string;
  contextId: string;
  requestMessage: A2aMessage;
  push?: A2aPushConfig;
}

export type CancelOutcome =
  | { kind: 'canceled'; task: StoredA2aTask }
  | { kind: 'not_cancelable'; task: StoredA2aTask }
  | { kind: 'not_found' };

export interface A2aTaskStore {
  /** Inserts the task unless (connection, messageId) has one; either way the stored task. */
  create(task: NewA2aTask): Promise<{ task: StoredA2aTask; created: boolean }>;
  /** Undoes create when the message could not be queued (only while still submitted). */
  discard(id: string): Promise<void>;
  /**
   * The task of this connection, or null. A task whose turn ended without a reply (the inbound row
   * is answered, no reply recorded) is failed: that is settled here, when it is read.
   */
  get(connectionId: string, id: string): Promise<StoredA2aTask | null>;
  /** submitted → working (the turn started). */
  markWorking(id: string): Promise<void>;
  /** submitted/working → completed with the reply; a finished task is left as it is. Null: no such task. */
  complete(
    connectionId: string,
    id: string,
    reply: A2aMessage,
    artifacts: A2aArtifact[],
  ): Promise<StoredA2aTask | null>;
  /**
   * Only a submitted task is canceled: its inbound message is marked answered in the same
   * transaction, so a worker that has not started the turn skips it. A working or finished task
   * is not cancelable.
   */
  cancel(connectionId: string, id: string): Promise<CancelOutcome>;
  /** The push notification was delivered: the caller's token is not kept any longer. */
  markPushed(id: string): Promise<void>;
  /** Polls until the task is finished or `timeoutMs` passed; the task as it then is. */
  waitFinished(connectionId: string, id: string, timeoutMs: number): Promise<StoredA2aTask | null>;
}

/** The task of one A2A message of one connection: a message sent twice is the same task. */
export const a2aTaskId = (connectionId: string, messageId: string): string =>
  derivedUuid('a2a-task', JSON.stringify([connectionId, messageId]));

interface Row {
  id: string;
  connection_id: string;
  message_id: string;
  context_id: string;
  state: A2aTaskState;
  request_message: A2aMessage;
  reply_message: A2aMessage | null;
  artifacts: A2aArtifact[];
  push_config: A2aPushConfig | null;
  pushed_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `t.id, t.connection_id, t.message_id, t.context_id, t.state, t.request_message, t.reply_message,
  t.artifacts, t.push_config, t.pushed_at, t.updated_at`;

const toTask = (row: Row): StoredA2aTask => ({
  id: row.id,
  connectionId: row.connection_id,
  messageId: row.message_id,
  contextId: row.context_id,
  state: row.state,
  requestMessage: row.request_message,
  replyMessage: row.reply_message,
  artifacts: row.artifacts,
  push: row.push_config,
  pushedAt: row.pushed_at,
  updatedAt: row.updated_at,
});

const POLL_MS = 200;
const isUuid = (value: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

export function createA2aTaskStore(pool: Pool): A2aTaskStore {
  async function get(connectionId: string, id: string): Promise<StoredA2aTask | null> {
    if (!isUuid(id)) return null;
    // A turn that could not succeed marks its inbound row answered without a reply (inbound
    // README, decision 6): the task then failed.
    const { rows } = await pool.query<Row>(
      `update a2a_tasks t set state = 'failed', updated_at = now()
       from channel_inbound_messages m
       where t.id = $1 and t.connection_id = $2 and t.state in ('submitted', 'working')
         and m.connection_id = t.connection_id and m.external_message_id = t.message_id
         and m.processed_at is not null and m.reply_message_id is null
       returning ${COLUMNS}`,
      [id, connectionId],
    );
    if (rows[0] !== undefined) return toTask(rows[0]);
    const found = await pool.query<Row>(
      `select ${COLUMNS} from a2a_tasks t where t.id = $1 and t.connection_id = $2`,
      [id, connectionId],
    );
    return found.rows[0] === undefined ? null : toTask(found.rows[0]);
  }

  return {
    async create(task) {
      const id = a2aTaskId(task.connectionId, task.messageId);
      const inserted = await pool.query<Row>(
        `insert into a2a_tasks as t (id, connection_id, message_id, context_id, state, request_message, push_config)
         values ($1, $2, $3, $4, 'submitted', $5, $6)
         on conflict do nothing
         returning ${COLUMNS}`,
        [
          id,
          task.connectionId,
          task.messageId,
          task.contextId,
          JSON.stringify(task.requestMessage),
          task.push === undefined ? null : JSON.stringify(task.push),
        ],
      );
      if (inserted.rows[0] !== undefined) return { task: toTask(inserted.rows[0]), created: true };
      const existing = await get(task.connectionId, id);
      if (existing === null) throw new Error('a2a task vanished between insert and read');
      return { task: existing, created: false };
    },

    async discard(id) {
      await pool.query(`delete from a2a_tasks where id = $1 and state = 'submitted'`, [id]);
    },

    get,

    async markWorking(id) {
      if (!isUuid(id)) return;
      await pool.query(
        `update a2a_tasks set state = 'working', updated_at = now() where id = $1 and state = 'submitted'`,
        [id],
      );
    },

    async complete(connectionId, id, reply, artifacts) {
      if (!isUuid(id)) return null;
      const { rows } = await pool.query<Row>(
        `update a2a_tasks t set state = 'completed', reply_message = $3, artifacts = $4, updated_at = now()
         where t.id = $1 and t.connection_id = $2 and t.state in ('submitted', 'working')
         returning ${COLUMNS}`,
        [id, connectionId, JSON.stringify(reply), JSON.stringify(artifacts)],
      );
      if (rows[0] !== undefined) return toTask(rows[0]);
      return get(connectionId, id);
    },

    async cancel(connectionId, id) {
      if (!isUuid(id)) return { kind: 'not_found' };
      const client = await pool.connect();
      try {
        await client.query('begin');
        const { rows } = await client.query<Row>(
          `update a2a_tasks t set state = 'canceled', updated_at = now()
           where t.id = $1 and t.connection_id = $2 and t.state = 'submitted'
           returning ${COLUMNS}`,
          [id, connectionId],
        );
        const canceled = rows[0];
        if (canceled !== undefined) {
          await client.query(
            `update channel_inbound_messages set processed_at = now()
             where connection_id = $1 and external_message_id = $2 and processed_at is null`,
            [connectionId, canceled.message_id],
          );
        }
        await client.query('commit');
        if (canceled !== undefined) return { kind: 'canceled', task: toTask(canceled) };
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
      const task = await get(connectionId, id);
      return task === null ? { kind: 'not_found' } : { kind: 'not_cancelable', task };
    },

    async markPushed(id) {
      await pool.query(
        `update a2a_tasks set pushed_at = now(), push_config = null, updated_at = now() where id = $1`,
        [id],
      );
    },

    async waitFinished(connectionId, id, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const task = await get(connectionId, id);
        if (
          task === null ||
          task.state === 'completed' ||
          task.state === 'failed' ||
          task.state === 'canceled'
        )
          return task;
        const left = deadline - Date.now();
        if (left <= 0) return task;
        await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
      }
    },
  };
}

/**
 * The A2A Task of a stored task: status (with the agent's reply once completed), history (the
 * user message, then the reply; the last `historyLength` of them when given) and artifacts.
 */
export function toA2aTask(task: StoredA2aTask, historyLength?: number): A2aTask {
  const history = [task.requestMessage, ...(task.replyMessage === null ? [] : [task.replyMessage])];
  const shown =
    historyLength === undefined ? history : historyLength === 0 ? [] : history.slice(-historyLength);
  return {
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: {
      state: task.state,
      timestamp: task.updatedAt.toISOString(),
      ...(task.state === 'completed' && task.replyMessage !== null ? { message: task.replyMessage } : {}),
    },
    history: shown,
    artifacts: task.artifacts,
  };
}
