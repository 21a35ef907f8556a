import { httpAsyncStream, toAppend } from '@parley/events';
import { type EventStore, type LogTransaction, withLogTransaction } from '@parley/eventstore';
import { isMissingRelation, PG_BOSS_QUEUE_NOT_FOUND, type Pool, type PoolClient } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { type JobStatement, sendJobInStatement } from '../inbound/jobInStatement.js';
import { CHANNEL_JOBS_NOTIFY_CHANNEL } from '../inbound/jobs.js';
import {
  SessionIdUnknownError,
  SessionKeyInUseError,
  SessionKeyInvalidError,
  SessionKeyUnknownError,
  SubscriptionPausedError,
} from './intakeErrors.js';
import {
  HTTP_ASYNC_TURN_QUEUE,
  type HttpAsyncRoute,
  type HttpAsyncTurnJobData,
  httpAsyncEventId,
  httpAsyncTurnJobId,
  newCanonicalSessionKey,
  newHttpAsyncMessageId,
} from './jobs.js';
import { QueueMissingError } from './queueCallback.js';
import { classifySessionKey } from './sessionKey.js';
import { SubscriptionNotFoundError } from './subscriptionSchema.js';
import type { SubscriptionStore } from './subscriptionStore.js';

export interface HttpAsyncSubmitInput {
  /** The API key's tenant and project: the subscription must be the project's. */
  tenantId: string;
  projectId: string;
  subscriptionId: string;
  text: string;
  /** First message: the caller's own key; later: the canonical key of the acknowledgement. */
  sessionKey?: string;
  /** The earlier route only, without sessionKey: continue the conversation of this runtime session. */
  sessionId?: string;
  /** Returned unchanged in the callbacks; {} when none was sent. */
  metadata?: Record<string, unknown>;
  route: HttpAsyncRoute;
}

export interface HttpAsyncAcceptance {
  messageId: string;
  /** The canonical conversation key. */
  sessionKey: string;
  /** This message started the conversation. */
  newConversation: boolean;
  /** The runtime session the conversation maps to, once its first turn has run; else null. */
  sessionId: string | null;
  acceptedAt: Date;
}

export interface HttpAsyncIntake {
  /**
   * Accepts a message for the agent: its conversation, its inbound row, its turn job and its
   * HttpAsyncMessageAccepted event, in one transaction. Throws SubscriptionNotFoundError (absent,
   * deleted or another project's), SubscriptionPausedError, SessionKeyInvalidError,
   * SessionKeyUnknownError, SessionKeyInUseError, SessionIdUnknownError, QueueMissingError (the
   * worker never created the turn queue).
   */
  submit(input: HttpAsyncSubmitInput): Promise<HttpAsyncAcceptance>;
}

export interface HttpAsyncIntakeDeps {
  pool: Pool;
  store: EventStore;
  subscriptions: Pick<SubscriptionStore, 'get'>;
  /** Only `send` (pg-boss's `db` option on the transaction's client), e.g. createChannelJobQueue(pool). */
  boss: Pick<PgBoss, 'send'>;
  now?: () => Date;
}

interface Conversation {
  sessionKey: string;
  newConversation: boolean;
  sessionId: string | null;
}

/** The message's inbound row (its dedupe row) and turn job. */
interface InboundRow {
  messageId: string;
  jobId: string;
  acceptedAt: Date;
}

/** Where the message goes: a conversation to start under the caller's key, or one that exists. */
type Target =
  | { kind: 'start'; callerKey: string; conversation: Conversation }
  | { kind: 'existing'; conversation: Conversation };

/** The turn workers' wake-up, delivered at commit (notifyChannelJob), as a column of an insert. */
const WAKE_TURN_WORKERS = `pg_notify('${CHANNEL_JOBS_NOTIFY_CHANNEL}', '${HTTP_ASYNC_TURN_QUEUE}')::text`;

/** A new conversation for the caller's key; its canonical key is made here, known before it is written. */
const start = (input: HttpAsyncSubmitInput, callerKey: string): Target => ({
  kind: 'start',
  callerKey,
  conversation: {
    sessionKey: newCanonicalSessionKey(input.subscriptionId),
    newConversation: true,
    sessionId: null,
  },
});

/** The message's conversation: read (an existing one) or planned (a new one); nothing written yet. */
async function targetOf(client: PoolClient, input: HttpAsyncSubmitInput, messageId: string): Promise<Target> {
  if (input.sessionKey !== undefined) {
    const key = classifySessionKey(input.sessionKey);
    switch (key.kind) {
      case 'invalid':
        throw new SessionKeyInvalidError(key.reason);
      case 'caller':
        return start(input, key.key);
      case 'canonical': {
        // Another subscription's key is unknown here too: it names no conversation of this one.
        const { rows } = await client.query<{ session_id: string | null }>(
          `select (select session_id from channel_sessions
                    where connection_id = c.subscription_id and external_session_key = c.canonical_key) as session_id
           from http_async_conversations c where c.canonical_key = $1 and c.subscription_id = $2`,
          [key.key, input.subscriptionId],
        );
        if (rows.length === 0) throw new SessionKeyUnknownError();
        const sessionId = rows[0]?.session_id ?? null;
        return { kind: 'existing', conversation: { sessionKey: key.key, newConversation: false, sessionId } };
      }
      default:
        return key satisfies never;
    }
  }
  if (input.sessionId !== undefined) {
    // The earlier route continues a conversation by the runtime session its callbacks named.
    const { rows } = await client.query<{ external_session_key: string }>(
      `select s.external_session_key from channel_sessions s
       join http_async_conversations c on c.canonical_key = s.external_session_key
         and c.subscription_id = s.connection_id
       where s.connection_id = $1 and s.session_id = $2
       order by s.updated_at desc limit 1`,
      [input.subscriptionId, input.sessionId],
    );
    const key = rows[0]?.external_session_key;
    if (key === undefined) throw new SessionIdUnknownError();
    return {
      kind: 'existing',
      conversation: { sessionKey: key, newConversation: false, sessionId: input.sessionId },
    };
  }
  // The earlier route without a sessionId: a new conversation, keyed by the message itself.
  return start(input, messageId);
}

/**
 * The statement that writes the message: its inbound row (and, for a new conversation, the
 * conversation first) with the turn job (sendJobInStatement). Two first messages with the same
 * caller key at once: the unique (subscription_id, caller_key) makes the second wait for the
 * first's commit, then insert nothing (no row, no job; `inbound` 0); if the first rolled back,
 * the second creates it.
 */
function messageStatement(input: HttpAsyncSubmitInput, target: Target, inbound: InboundRow): JobStatement {
  const row = [
    input.subscriptionId,
    inbound.messageId,
    target.conversation.sessionKey,
    inbound.jobId,
    inbound.acceptedAt,
  ];
  const select = '(select count(*) from inbound)::int as inbound';
  if (target.kind === 'existing') {
    return {
      ctes: `inbound as (
         insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id, received_at)
         values ($2, $3, $4, $5, $6) returning ${WAKE_TURN_WORKERS})`,
      when: 'true',
      select,
      values: row,
    };
  }
  return {
    ctes: `conversation as (
       insert into http_async_conversations (canonical_key, subscription_id, project_id, caller_key)
       values ($4, $2, $7, $8) on conflict (subscription_id, caller_key) do nothing
       returning canonical_key),
     inbound as (
       insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id, received_at)
       select $2, $3, canonical_key, $5, $6 from conversation returning ${WAKE_TURN_WORKERS})`,
    when: 'exists (select 1 from inbound)',
    select,
    values: [...row, input.projectId, target.callerKey],
  };
}

/** The caller's key names a conversation started meanwhile (see messageStatement). */
async function keyInUse(client: PoolClient, input: HttpAsyncSubmitInput, callerKey: string): Promise<never> {
  const existing = await client.query<{ canonical_key: string }>(
    'select canonical_key from http_async_conversations where subscription_id = $1 and caller_key = $2',
    [input.subscriptionId, callerKey],
  );
  const canonical = existing.rows[0]?.canonical_key;
  // Unreachable but for a conversation deleted between the two statements: the caller may retry.
  if (canonical === undefined) throw new Error('conversation vanished while its key was in use');
  throw new SessionKeyInUseError(canonical);
}

async function accept(
  tx: LogTransaction,
  deps: HttpAsyncIntakeDeps,
  input: HttpAsyncSubmitInput,
  messageId: string,
  acceptedAt: Date,
): Promise<HttpAsyncAcceptance> {
  const { client } = tx;
  const jobId = httpAsyncTurnJobId(input.subscriptionId, messageId);
  const target = await targetOf(client, input, messageId);
  const { conversation } = target;
  const metadata = input.metadata ?? {};
  const data: HttpAsyncTurnJobData = {
    messageId,
    subscriptionId: input.subscriptionId,
    projectId: input.projectId,
    tenantId: input.tenantId,
    route: input.route,
    sessionKey: conversation.sessionKey,
    newConversation: conversation.newConversation,
    text: input.text,
    metadata,
    acceptedAt: acceptedAt.toISOString(),
  };
  // One statement: the conversation (when new), the inbound row and the turn job. A new message
  // id never repeats a job id; the message must not be accepted without its queue.
  const written = await sendJobInStatement<{ inbound: number }>(
    client,
    deps.boss,
    { queue: HTTP_ASYNC_TURN_QUEUE, data, options: { id: jobId } },
    messageStatement(input, target, { messageId, jobId, acceptedAt }),
  ).catch((err: unknown) => {
    // No queue, or no pg-boss schema at all: the worker, which creates them, never ran.
    const code = (err as { code?: unknown } | null)?.code;
    if (code === PG_BOSS_QUEUE_NOT_FOUND || isMissingRelation(err))
      throw new QueueMissingError(HTTP_ASYNC_TURN_QUEUE);
    throw err;
  });
  if (written.inbound !== 1 && target.kind === 'start') await keyInUse(client, input, target.callerKey);
  await tx.append(httpAsyncStream(messageId), [
    toAppend(
      'HttpAsyncMessageAccepted',
      {
        messageId,
        projectId: input.projectId,
        subscriptionId: input.subscriptionId,
        route: input.route,
        sessionKey: conversation.sessionKey,
        newConversation: conversation.newConversation,
        text: input.text,
        metadata,
        acceptedAt: data.acceptedAt,
      },
      { tenantId: input.tenantId, projectId: input.projectId, correlationId: messageId },
      httpAsyncEventId('accepted', messageId, 0),
    ),
  ]);
  return { messageId, ...conversation, acceptedAt };
}

/** The submit side of the HTTP async channel (spec 001 §4.9): what the two submit routes call. */
export function createHttpAsyncIntake(deps: HttpAsyncIntakeDeps): HttpAsyncIntake {
  const now = deps.now ?? (() => new Date());
  return {
    async submit(input) {
      // Looked up by the key's project: another project's subscription is "not found", not "forbidden".
      const subscription = await deps.subscriptions.get(input.projectId, input.subscriptionId);
      if (subscription === null) throw new SubscriptionNotFoundError(input.subscriptionId);
      if (subscription.status === 'paused') throw new SubscriptionPausedError(input.subscriptionId);
      const messageId = newHttpAsyncMessageId();
      const acceptedAt = now();
      return withLogTransaction(deps.pool, deps.store, (tx) =>
        accept(tx, deps, input, messageId, acceptedAt),
      );
    },
  };
}
