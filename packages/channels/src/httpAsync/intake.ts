import { httpAsyncStream, toAppend } from '@parley/events';
import { type EventStore, type LogTransaction, withLogTransaction } from '@parley/eventstore';
import { isMissingRelation, nullIfQueueMissing, type Pool, type PoolClient } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { CHANNEL_JOBS_NOTIFY_CHANNEL } from '../inbound/jobs.js';
import { mappedSession } from '../inbound/processor.js';
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
import { assertQueueExists, QueueMissingError } from './queueCallback.js';
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

/** The message's inbound row (its dedupe row): written with its conversation, or alone. */
interface InboundRow {
  messageId: string;
  jobId: string;
  acceptedAt: Date;
}

/** The turn workers' wake-up, delivered at commit (notifyChannelJob), as a column of an insert. */
const WAKE_TURN_WORKERS = `pg_notify('${CHANNEL_JOBS_NOTIFY_CHANNEL}', '${HTTP_ASYNC_TURN_QUEUE}')::text`;

/**
 * A new conversation for the caller's key, with the message's inbound row, in one statement. Two
 * first messages with the same key at once: the unique (subscription_id, caller_key) makes the
 * second wait for the first's commit, then find its row (SessionKeyInUseError, nothing written);
 * if the first rolled back, the second creates it.
 */
async function startConversation(
  client: PoolClient,
  input: HttpAsyncSubmitInput,
  callerKey: string,
  inbound: InboundRow,
): Promise<Conversation> {
  const created = await client.query<{ canonical_key: string | null }>(
    `with conversation as (
       insert into http_async_conversations (canonical_key, subscription_id, project_id, caller_key)
       values ($1, $2, $3, $4) on conflict (subscription_id, caller_key) do nothing
       returning canonical_key),
     inbound as (
       insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id, received_at)
       select $2, $5, canonical_key, $6, $7 from conversation returning ${WAKE_TURN_WORKERS})
     select (select canonical_key from conversation) as canonical_key, (select count(*) from inbound) as inbound`,
    [
      newCanonicalSessionKey(input.subscriptionId),
      input.subscriptionId,
      input.projectId,
      callerKey,
      inbound.messageId,
      inbound.jobId,
      inbound.acceptedAt,
    ],
  );
  const key = created.rows[0]?.canonical_key ?? null;
  if (key !== null) return { sessionKey: key, newConversation: true, sessionId: null };
  const existing = await client.query<{ canonical_key: string }>(
    'select canonical_key from http_async_conversations where subscription_id = $1 and caller_key = $2',
    [input.subscriptionId, callerKey],
  );
  const canonical = existing.rows[0]?.canonical_key;
  // Unreachable but for a conversation deleted between the two statements: the caller may retry.
  if (canonical === undefined) throw new Error('conversation vanished while its key was in use');
  throw new SessionKeyInUseError(canonical);
}

/** The inbound row of a message to a conversation that exists. */
async function insertInbound(
  client: PoolClient,
  input: HttpAsyncSubmitInput,
  conversation: Conversation,
  inbound: InboundRow,
): Promise<Conversation> {
  await client.query(
    `insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id, received_at)
     values ($1, $2, $3, $4, $5) returning ${WAKE_TURN_WORKERS}`,
    [input.subscriptionId, inbound.messageId, conversation.sessionKey, inbound.jobId, inbound.acceptedAt],
  );
  return conversation;
}

/** The message's conversation, found or started, and its inbound row written. */
async function conversationOf(
  client: PoolClient,
  input: HttpAsyncSubmitInput,
  inbound: InboundRow,
): Promise<Conversation> {
  if (input.sessionKey !== undefined) {
    const key = classifySessionKey(input.sessionKey);
    switch (key.kind) {
      case 'invalid':
        throw new SessionKeyInvalidError(key.reason);
      case 'caller':
        return startConversation(client, input, key.key, inbound);
      case 'canonical': {
        // Another subscription's key is unknown here too: it names no conversation of this one.
        const { rows } = await client.query(
          'select 1 from http_async_conversations where canonical_key = $1 and subscription_id = $2',
          [key.key, input.subscriptionId],
        );
        if (rows.length === 0) throw new SessionKeyUnknownError();
        const sessionId = await mappedSession(client, input.subscriptionId, key.key);
        return insertInbound(
          client,
          input,
          { sessionKey: key.key, newConversation: false, sessionId },
          inbound,
        );
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
    const conversation = { sessionKey: key, newConversation: false, sessionId: input.sessionId };
    return insertInbound(client, input, conversation, inbound);
  }
  // The earlier route without a sessionId: a new conversation, keyed by the message itself.
  return startConversation(client, input, inbound.messageId, inbound);
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
  const conversation = await conversationOf(client, input, { messageId, jobId, acceptedAt });
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
  const queued = await nullIfQueueMissing(
    deps.boss.send(HTTP_ASYNC_TURN_QUEUE, data, {
      id: jobId,
      db: { executeSql: (text, values) => client.query(text, values) },
    }),
  ).catch((err: unknown) => {
    // No pg-boss schema at all: the worker, which creates it with the queues, never ran.
    if (isMissingRelation(err)) throw new QueueMissingError(HTTP_ASYNC_TURN_QUEUE);
    throw err;
  });
  // pg-boss answers null for a queue that does not exist (the worker creates the queues): the
  // message must not be accepted. A new message id never repeats a job id.
  if (queued === null) await assertQueueExists(tx, HTTP_ASYNC_TURN_QUEUE);
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
