import { httpAsyncStream, toAppend } from '@parley/events';
import {
  canAppendInTransaction,
  type EventStore,
  type EventToAppend,
  isOrderConflict,
} from '@parley/eventstore';
import {
  type CoalescedNotify,
  isMissingRelation,
  type Logger,
  PG_BOSS_QUEUE_NOT_FOUND,
  type Pool,
  silentLogger,
} from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { sendJobInStatement } from '../inbound/jobInStatement.js';
import { createChannelJobWakeups } from '../inbound/jobs.js';
import {
  SessionIdUnknownError,
  SessionKeyInUseError,
  SessionKeyInvalidError,
  SessionKeyUnknownError,
  SubscriptionPausedError,
} from './intakeErrors.js';
import { type MessageWritten, messageStatement, type Target } from './intakeStatement.js';
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
   * HttpAsyncMessageAccepted event, all or none (one statement on the PostgreSQL log). Throws SubscriptionNotFoundError (absent,
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
  /** Only `send` (its insert runs in the message's statement: sendJobInStatement), e.g. createChannelJobQueue(pool). */
  boss: Pick<PgBoss, 'send'>;
  now?: () => Date;
  /** The turn workers' wake-up after a message's statement commits (default: createChannelJobWakeups on `pool`). */
  wakeups?: Pick<CoalescedNotify, 'notify'>;
  /** For the wake-ups' failures (debug); default silent. */
  logger?: Logger;
}

/** What reads the conversation before the write: the pool. */
type Queryable = Pick<Pool, 'query'>;

/** Append order conflicts in a row before giving up (a retry gets a newer transaction id). */
const ORDER_CONFLICT_RETRIES = 10;

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
async function targetOf(client: Queryable, input: HttpAsyncSubmitInput, messageId: string): Promise<Target> {
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

/** The caller's key names a conversation started meanwhile (see messageStatement). */
async function keyInUse(client: Queryable, input: HttpAsyncSubmitInput, callerKey: string): Promise<never> {
  const existing = await client.query<{ canonical_key: string }>(
    'select canonical_key from http_async_conversations where subscription_id = $1 and caller_key = $2',
    [input.subscriptionId, callerKey],
  );
  const canonical = existing.rows[0]?.canonical_key;
  // Unreachable but for a conversation deleted between the two statements: the caller may retry.
  if (canonical === undefined) throw new Error('conversation vanished while its key was in use');
  throw new SessionKeyInUseError(canonical);
}

/** The message's event: HttpAsyncMessageAccepted, its id derived from the message id. */
function acceptedEvent(input: HttpAsyncSubmitInput, data: HttpAsyncTurnJobData): EventToAppend {
  return toAppend(
    'HttpAsyncMessageAccepted',
    {
      messageId: data.messageId,
      projectId: input.projectId,
      subscriptionId: input.subscriptionId,
      route: input.route,
      sessionKey: data.sessionKey,
      newConversation: data.newConversation,
      text: input.text,
      metadata: data.metadata,
      acceptedAt: data.acceptedAt,
    },
    { tenantId: input.tenantId, projectId: input.projectId, correlationId: data.messageId },
    httpAsyncEventId('accepted', data.messageId, 0),
  );
}

/**
 * Writes the message in one statement (messageStatement: the conversation when new, the inbound
 * row, the event on the PostgreSQL log, the turn job), run again after an append order conflict
 * (it wrote nothing). On another log the event is appended after the statement, as
 * logTransactionOn does. Then the wake-ups: the log's readers and the turn workers.
 */
async function write(
  deps: HttpAsyncIntakeDeps & { wakeups: Pick<CoalescedNotify, 'notify'> },
  input: HttpAsyncSubmitInput,
  target: Target,
  data: HttpAsyncTurnJobData,
  acceptedAt: Date,
): Promise<MessageWritten> {
  const { pool, store } = deps;
  const stream = httpAsyncStream(data.messageId);
  const event = acceptedEvent(input, data);
  const sameStatement = canAppendInTransaction(store);
  const jobId = httpAsyncTurnJobId(input.subscriptionId, data.messageId);
  const row = {
    subscriptionId: input.subscriptionId,
    projectId: input.projectId,
    messageId: data.messageId,
    jobId,
    acceptedAt,
  };
  for (let attempt = 1; ; attempt++) {
    const append = sameStatement ? await store.statementAppend(stream, [event]) : undefined;
    try {
      const written = await sendJobInStatement<MessageWritten>(
        pool,
        deps.boss,
        { queue: HTTP_ASYNC_TURN_QUEUE, data, options: { id: jobId } },
        messageStatement(target, row, append),
      );
      if (written.inbound !== 1) return written;
      if (sameStatement) store.notifyAppended();
      else await store.append(stream, [event]);
      deps.wakeups.notify(HTTP_ASYNC_TURN_QUEUE);
      return written;
    } catch (err) {
      if (isOrderConflict(err) && attempt < ORDER_CONFLICT_RETRIES) continue;
      // No queue, or no pg-boss schema at all: the worker, which creates them, never ran.
      const code = (err as { code?: unknown } | null)?.code;
      if (code === PG_BOSS_QUEUE_NOT_FOUND || isMissingRelation(err))
        throw new QueueMissingError(HTTP_ASYNC_TURN_QUEUE);
      throw err;
    }
  }
}

async function accept(
  deps: HttpAsyncIntakeDeps & { wakeups: Pick<CoalescedNotify, 'notify'> },
  input: HttpAsyncSubmitInput,
  messageId: string,
  acceptedAt: Date,
): Promise<HttpAsyncAcceptance> {
  const target = await targetOf(deps.pool, input, messageId);
  const { conversation } = target;
  const data: HttpAsyncTurnJobData = {
    messageId,
    subscriptionId: input.subscriptionId,
    projectId: input.projectId,
    tenantId: input.tenantId,
    route: input.route,
    sessionKey: conversation.sessionKey,
    newConversation: conversation.newConversation,
    text: input.text,
    metadata: input.metadata ?? {},
    acceptedAt: acceptedAt.toISOString(),
  };
  const written = await write(deps, input, target, data, acceptedAt);
  if (written.inbound !== 1 && target.kind === 'start') await keyInUse(deps.pool, input, target.callerKey);
  return { messageId, ...conversation, acceptedAt };
}

/** The submit side of the HTTP async channel (spec 001 §4.9): what the two submit routes call. */
export function createHttpAsyncIntake(deps: HttpAsyncIntakeDeps): HttpAsyncIntake {
  const now = deps.now ?? (() => new Date());
  const writer = {
    ...deps,
    wakeups: deps.wakeups ?? createChannelJobWakeups(deps.pool, deps.logger ?? silentLogger()),
  };
  return {
    async submit(input) {
      // Looked up by the key's project: another project's subscription is "not found", not "forbidden".
      const subscription = await deps.subscriptions.get(input.projectId, input.subscriptionId);
      if (subscription === null) throw new SubscriptionNotFoundError(input.subscriptionId);
      if (subscription.status === 'paused') throw new SubscriptionPausedError(input.subscriptionId);
      const messageId = newHttpAsyncMessageId();
      const acceptedAt = now();
      return accept(writer, input, messageId, acceptedAt);
    },
  };
}
