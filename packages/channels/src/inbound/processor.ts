import { type EventData, sessionStream, timestampSchema, toAppend } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import {
  isParleyError,
  type Logger,
  ParleyError,
  PG_BOSS_QUEUE_NOT_FOUND,
  type Pool,
  type PoolClient,
} from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import type { ChannelAdapter, SyncOutcome } from '../adapter.js';
import { type ApiBaseUrlGuard, apiBaseUrlRefusal } from '../connections/apiBaseUrl.js';
import { adapterKey, providerVariant } from '../manifest/providers.js';
import { channelOrigin } from '../resume/resumeOrigin.js';
import type {
  ChannelHttp,
  NormalizedMessage,
  OutgoingMessage,
  OutgoingReply,
  ResolvedConnection,
  SendResult,
} from '../types.js';
import { deliveryEventId, sendJobId } from './ids.js';
import { sendJobInStatement } from './jobInStatement.js';
import { CHANNEL_SEND_QUEUE, type InboundJobData, type SendJobData } from './jobs.js';
import { recordOutboundMessages } from './receipts.js';
import { turnRecordCtes, turnRecordValues } from './turnRecord.js';

/** The runtime turn the worker runs (a subset of @parley/runtime's TurnRequest / TurnResult). */
export interface ChannelTurnRequest {
  projectId: string;
  tenantId: string;
  sessionId?: string;
  message: string;
  agentName?: string;
  channel?: string;
  channelType?: string;
  channelUserId?: string;
  actionEvent?: Record<string, unknown>;
  externalMessageId?: string;
  channelMetadata?: Record<string, unknown>;
  sentAt?: string;
  messageMetadata?: Record<string, unknown>;
  /** A remote handoff's forwarded conversation (runtime TurnRequest.forwardedHistory). */
  forwardedHistory?: Array<{ role: 'user' | 'agent'; text: string }>;
  /** Where a reply that comes later (a suspended tool's) goes (runtime TurnRequest.origin; ResumeOrigin). */
  origin?: Record<string, unknown>;
}
export interface ChannelTurnResult {
  sessionId: string;
  reply: {
    messageId: string;
    text: string;
    actionSet?: EventData<'AgentReplied'>['actionSet'];
    /** The agent's fallback reply (runtime TurnResult.reply.usedFallback). */
    usedFallback?: boolean;
    /** The model wrote the reply (runtime TurnResult.reply.isLlmGenerated). */
    isLlmGenerated?: boolean;
    /** Media the reply carries (runtime TurnResult.reply.media). */
    media?: Array<{ url: string; mimeType: string; name?: string; caption?: string }>;
  };
  /**
   * A tool suspended the turn (runtime TurnResult.suspended): nothing is delivered now; the reply
   * goes out when the turn resumes (deliverResumedReply, with the request's `origin`).
   */
  suspended?: null | { suspensionId: string };
  /** This turn started the runtime session (runtime TurnResult.created). */
  created?: boolean;
  /** LLM calls made in the turn (runtime TurnResult.llmCalls). */
  llmCalls?: number;
  /** Set when the agent ended the conversation in this turn (runtime TurnResult.ended). */
  ended?: null | { status: string };
}

/** runtime.runTurn as the channels call it; `signal` aborts the turn (the synchronous path's timeout). */
export type ChannelTurnRunner = (
  req: ChannelTurnRequest,
  options?: { signal?: AbortSignal },
) => Promise<ChannelTurnResult>;

/** What the worker needs from the connection store (@parley/channels createConnectionStore). */
export interface DeliveryConnectionLookup {
  resolveById(id: string): Promise<ResolvedConnection | null>;
  recordSendFailure(id: string, error: string): Promise<unknown>;
  recordSendSuccess(id: string): Promise<void>;
}

export interface InboundWorkerDeps {
  pool: Pool;
  store: EventStore;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  connections: DeliveryConnectionLookup;
  /** runtime.runTurn (@parley/runtime). */
  runTurn(req: ChannelTurnRequest): Promise<ChannelTurnResult>;
  logger: Logger;
  /** Platform HTTP; tests point it at a local stand-in. Default: global fetch. */
  fetch?: typeof fetch;
  now?: () => Date;
  /**
   * The SSRF guard on connections' `settings.apiBaseUrl` (CHANNEL_API_BASE_URL_ALLOWLIST), checked
   * again before each send and typing indicator to such a URL (its host may resolve elsewhere by
   * now, or the row predates the guard): refused, the send fails for good. Absent: not re-checked.
   */
  apiBaseUrl?: ApiBaseUrlGuard;
}

/** An adapter's message time the log would refuse (not ISO 8601 with a zone) is not recorded. */
const isIsoTime = (value: string): boolean => timestampSchema.safeParse(value).success;

/** Codes of runtime errors after which a conversation starts a new session (the mapped one ended or is gone). */
const NEW_SESSION_CODES = ['SESSION_ENDED', 'SESSION_NOT_FOUND'];
/**
 * Codes of runtime errors a retry cannot cure (and that may already have recorded the user's
 * message): the message is marked answered without a reply instead of being retried.
 */
export const FINAL_TURN_CODES = ['PROVIDER_FAILED', 'TURN_ABORTED', 'AGENT_NOT_FOUND', 'PROJECT_NOT_FOUND'];

/**
 * The adapter of the connection's provider variant; the channel type's for a type without variants
 * or on its default provider (maps keyed by type alone serve those), never another provider's.
 */
const adapterOf = (
  adapters: ReadonlyMap<string, ChannelAdapter>,
  connection: ResolvedConnection,
): ChannelAdapter | undefined => {
  const variant = providerVariant(connection.channelType, connection.provider);
  const own = adapters.get(adapterKey(connection.channelType, variant?.provider));
  return own ?? (variant ? (variant.default ? adapters.get(connection.channelType) : undefined) : undefined);
};

const httpOf = (deps: InboundWorkerDeps, connection: ResolvedConnection): ChannelHttp => {
  const base = connection.settings.apiBaseUrl;
  return {
    fetch: deps.fetch ?? globalThis.fetch,
    ...(typeof base === 'string' && base !== '' ? { apiBaseUrl: base } : {}),
  };
};

/**
 * The connection's ChannelHttp, or why its apiBaseUrl may not be called now (deps.apiBaseUrl's
 * guard; the store checked it when it was saved).
 */
async function guardedHttpOf(
  deps: InboundWorkerDeps,
  connection: ResolvedConnection,
): Promise<{ ok: true; http: ChannelHttp } | { ok: false; error: string }> {
  if (deps.apiBaseUrl !== undefined) {
    const refusal = await apiBaseUrlRefusal(connection.settings, deps.apiBaseUrl);
    if (refusal !== null) return { ok: false, error: `settings.apiBaseUrl refused (${refusal.reason})` };
  }
  return { ok: true, http: httpOf(deps, connection) };
}

import { type ConversationLease, withConversationLock } from './conversationLock.js';

export { withConversationLock };

/** A connection to query with: the pool, or a client inside a transaction. */
type Queryable = Pick<Pool, 'query'> | PoolClient;

/** Runs `fn` on a client of the pool, for the statements that must share one (a transaction). */
export async function withClient<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}

/**
 * The session channel (spec 000 §4.2's enumerated values) of a connection's channel type, where the
 * two differ: VoiceXML connections (`vxml`) start `voice_vxml` sessions. Recorded as `channel`;
 * `channelType` stays the connection's (docs/decisions.md "Session channels").
 */
const SESSION_CHANNELS: Readonly<Record<string, string>> = { vxml: 'voice_vxml' };

export const sessionChannelOf = (channelType: string): string => SESSION_CHANNELS[channelType] ?? channelType;

/** The runtime request of one inbound message: the same fields whether queued or synchronous. */
export function channelTurnRequest(
  connection: ResolvedConnection,
  message: NormalizedMessage,
): ChannelTurnRequest {
  return {
    projectId: connection.projectId,
    tenantId: connection.tenantId,
    message: message.text,
    channel: sessionChannelOf(connection.channelType),
    channelType: connection.channelType,
    ...(connection.agentName === null ? {} : { agentName: connection.agentName }),
    ...(message.channelUserId === undefined ? {} : { channelUserId: message.channelUserId }),
    ...(message.actionEvent === undefined ? {} : { actionEvent: message.actionEvent }),
    externalMessageId: message.externalMessageId,
    channelMetadata: message.metadata,
    ...(isIsoTime(message.timestamp) ? { sentAt: message.timestamp } : {}),
    ...(message.messageMetadata === undefined ? {} : { messageMetadata: message.messageMetadata }),
    ...(message.forwardedHistory === undefined ? {} : { forwardedHistory: message.forwardedHistory }),
  };
}

/** A turn error a retry cannot cure: the message is answered without a reply instead of retried. */
export const isFinalTurnError = (err: unknown): err is ParleyError => isParleyError(err, ...FINAL_TURN_CODES);

/** The runtime session a conversation (connection, external session key) is mapped to, if any. */
export async function mappedSession(
  client: Queryable,
  connectionId: string,
  externalSessionKey: string,
): Promise<string | null> {
  const { rows } = await client.query<{ session_id: string }>(
    'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
    [connectionId, externalSessionKey],
  );
  return rows[0]?.session_id ?? null;
}

/**
 * Runs the message's turn in the conversation's mapped session, or in a new session when the key
 * has none or its session ended or is gone. Call it holding the conversation's lock.
 * `mapped`: the caller already read mappedSession under this lock (not read again).
 */
export async function runChannelTurn(
  client: Queryable,
  runTurn: ChannelTurnRunner,
  connection: ResolvedConnection,
  message: NormalizedMessage,
  options: { signal?: AbortSignal; mapped?: string | null; origin?: Record<string, unknown> } = {},
): Promise<ChannelTurnResult> {
  const existing =
    options.mapped !== undefined
      ? options.mapped
      : await mappedSession(client, connection.id, message.externalSessionKey);
  const base = {
    ...channelTurnRequest(connection, message),
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  };
  const run = (req: ChannelTurnRequest) =>
    options.signal === undefined ? runTurn(req) : runTurn(req, { signal: options.signal });
  try {
    return await run(existing === null ? base : { ...base, sessionId: existing });
  } catch (err) {
    if (existing === null || !isParleyError(err, ...NEW_SESSION_CODES)) throw err;
    // The conversation's session ended: the next message starts a new one.
    return await run(base);
  }
}

/**
 * Records a turn's outcome (turnRecordCtes): the conversation key mapped to the turn's session
 * (when it produced one), the dedupe row marked answered (with the reply's id and, for synchronous
 * channels, the outcome the response was rendered from). One statement, atomic by itself; with
 * `within` (the HTTP async path's callbacks) a transaction around it and `within`.
 */
export async function recordChannelTurn(
  client: PoolClient,
  connectionId: string,
  message: NormalizedMessage,
  result: ChannelTurnResult | null,
  options: { syncOutcome?: SyncOutcome; within?: (client: PoolClient) => Promise<void> } = {},
): Promise<void> {
  const record = () =>
    client.query(
      `with ${turnRecordCtes(1)} select 1`,
      turnRecordValues(connectionId, message, result, options.syncOutcome),
    );
  if (options.within === undefined) {
    await record();
    return;
  }
  await client.query('begin');
  try {
    await record();
    await options.within(client);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/**
 * Records a turn that produced a reply, queues the reply's send job and releases the
 * conversation's lock in one statement (no transaction to begin and commit): all or nothing.
 * No NOTIFY: the process that ran the turn has send workers and wakes one of them
 * (workChannelQueues); a NOTIFY woke one more here and one in every other worker process, each
 * an empty fetch but one, and made every reply's commit take the cluster's notify queue lock.
 * Should all of this process's send workers be at work, the first done fetches again.
 */
async function recordChannelReply(
  pool: Pool,
  boss: PgBoss,
  message: NormalizedMessage,
  result: ChannelTurnResult,
  send: SendJobData,
  lease: ConversationLease,
): Promise<void> {
  await sendJobInStatement(
    pool,
    boss,
    {
      queue: CHANNEL_SEND_QUEUE,
      data: send,
      options: { id: sendJobId(send.connectionId, result.reply.messageId) },
    },
    {
      ctes: `${turnRecordCtes(2)}, ${lease.releaseCte(8)}`,
      when: 'true',
      select: '(select count(*) from answered)::int as answered',
      values: [...turnRecordValues(send.connectionId, message, result, undefined), ...lease.values],
    },
  ).catch((err: unknown) => {
    if ((err as { code?: unknown }).code === PG_BOSS_QUEUE_NOT_FOUND) {
      throw new Error(`the ${CHANNEL_SEND_QUEUE} queue does not exist`);
    }
    throw err;
  });
  lease.released();
}

/**
 * One inbound job: create or resume the conversation's session, run the agent's turn, record the
 * outcome and enqueue the reply's send job (same transaction). A job run again after the turn was
 * recorded (crash, expiry) only makes sure the send job exists: the turn never runs twice.
 */
export async function processInboundJob(
  deps: InboundWorkerDeps,
  boss: PgBoss,
  data: InboundJobData,
): Promise<void> {
  const { pool, logger } = deps;
  const { connectionId, message } = data;
  const log = logger.child({ connectionId, channelType: data.channelType });
  const connection = await deps.connections.resolveById(connectionId);
  if (connection === null || !connection.active) {
    log.info(
      { reason: connection === null ? 'connection_deleted' : 'connection_inactive' },
      'inbound message dropped',
    );
    return;
  }
  const adapter = adapterOf(deps.adapters, connection);
  if (adapter === undefined) throw new Error(`no adapter for channel type ${data.channelType}`);

  await withConversationLock(pool, connectionId, message.externalSessionKey, async (lease) => {
    // Read under the lock: whether the message was answered, and the conversation's session.
    const { rows } = await pool.query<{ processed: boolean | null; session_id: string | null }>(
      `select (select processed_at is not null from channel_inbound_messages
                where connection_id = $1 and external_message_id = $2) as processed,
              (select session_id from channel_sessions
                where connection_id = $1 and external_session_key = $3) as session_id`,
      [connectionId, message.externalMessageId, message.externalSessionKey],
    );
    if (rows[0]?.processed === true) {
      log.debug('inbound message already answered');
      return;
    }

    // Typing indicator while the agent works (best effort: never fails the job).
    const typingHttp = adapter.sendTypingIndicator ? await guardedHttpOf(deps, connection) : null;
    if (adapter.sendTypingIndicator && typingHttp?.ok === true) {
      await adapter
        .sendTypingIndicator(connection, message.externalSessionKey, message.metadata, typingHttp.http)
        .catch((err: unknown) => log.warn({ err }, 'typing indicator failed'));
    }

    let result: ChannelTurnResult;
    try {
      result = await runChannelTurn(pool, (req) => deps.runTurn(req), connection, message, {
        origin: channelOrigin(connection, data.channelType, message),
        mapped: rows[0]?.session_id ?? null,
      });
    } catch (err) {
      if (!isFinalTurnError(err)) throw err;
      log.warn({ error: err.name }, 'inbound message not answered: the turn failed');
      await withClient(pool, (client) => recordChannelTurn(client, connectionId, message, null));
      return;
    }

    if (result.suspended) {
      // A tool suspended the turn: the reply is sent when it resumes (a send job then, same id).
      await withClient(pool, (client) => recordChannelTurn(client, connectionId, message, result));
      return;
    }
    const send: SendJobData = {
      connectionId,
      channelType: data.channelType,
      tenantId: connection.tenantId,
      projectId: connection.projectId,
      sessionId: result.sessionId,
      replyMessageId: result.reply.messageId,
      externalSessionKey: message.externalSessionKey,
      metadata: message.metadata,
      reply: {
        text: result.reply.text,
        ...(result.reply.actionSet === undefined ? {} : { actionSet: result.reply.actionSet }),
      },
    };
    await recordChannelReply(pool, boss, message, result, send, lease);
  });
}

export type SendOutcome = 'sent' | 'suppressed' | 'retry' | 'failed';

/** An attempt failed and another one is due: pg-boss retries the job (with backoff). */
export class RetryableSendError extends ParleyError {
  override readonly name = 'RetryableSendError';
  constructor(message: string) {
    super('SEND_RETRYABLE', 500, message);
  }
}

/**
 * One send job attempt: transformOutput, then sendResponse. Success appends ChannelMessageSent and
 * clears the connection's failure count; a retryable failure with attempts left throws
 * RetryableSendError (pg-boss retries it); a permanent failure or the last attempt appends
 * ChannelSendFailed and counts a failure on the connection (its status turns `error` after
 * several). Sent and failed share one event id, so a reply has one outcome event however often
 * the job runs.
 */
export async function processSendJob(
  deps: InboundWorkerDeps,
  data: SendJobData,
  attempt: { retryCount: number; retryLimit: number },
): Promise<SendOutcome> {
  const now = deps.now ?? (() => new Date());
  const log = deps.logger.child({ connectionId: data.connectionId, channelType: data.channelType });
  const attempts = attempt.retryCount + 1;
  const scope = {
    sessionId: data.sessionId,
    projectId: data.projectId,
    connectionId: data.connectionId,
    channelType: data.channelType,
    messageId: data.replyMessageId,
    attempts,
  };
  const metadata = { tenantId: data.tenantId, correlationId: data.replyMessageId };
  const eventId = deliveryEventId(data.connectionId, data.replyMessageId);

  const connection = await deps.connections.resolveById(data.connectionId);
  const adapter = connection === null ? undefined : adapterOf(deps.adapters, connection);
  let result: SendResult;
  if (connection === null) {
    result = { ok: false, retryable: false, error: 'connection deleted' };
  } else if (adapter === undefined) {
    result = { ok: false, retryable: false, error: `no adapter for channel type ${data.channelType}` };
  } else {
    const reply: OutgoingReply = data.reply;
    const message: OutgoingMessage = {
      externalSessionKey: data.externalSessionKey,
      reply,
      metadata: data.metadata,
      messageId: data.replyMessageId,
    };
    try {
      if (adapter.transformOutput) message.channelOutput = adapter.transformOutput(reply, connection);
      const http = await guardedHttpOf(deps, connection);
      result = http.ok
        ? await adapter.sendResponse(message, connection, http.http)
        : { ok: false, retryable: false, error: http.error };
    } catch (err) {
      // A thrown error (network failure, timeout) is worth retrying; its text may hold a URL, keep the name.
      result = { ok: false, retryable: true, error: err instanceof Error ? `${err.name}` : 'send failed' };
    }
  }

  if (result.ok && result.suppressed !== undefined) {
    // Held back on purpose (not a failure, nor proof the channel works): the connection's counts stay.
    await deps.store.append(sessionStream(data.sessionId), [
      toAppend(
        'ChannelSendSuppressed',
        {
          ...scope,
          reason: result.suppressed.slice(0, 200) || 'suppressed',
          suppressedAt: now().toISOString(),
        },
        metadata,
        eventId,
      ),
    ]);
    return 'suppressed';
  }
  if (result.ok) {
    // Platforms that report on sent messages: keep their ids for the receipts (inbound/receipts.ts).
    if (adapter?.parseReceipts !== undefined) {
      const ids = result.externalMessageIds ?? (result.externalMessageId ? [result.externalMessageId] : []);
      await recordOutboundMessages(deps.pool, data.connectionId, ids, {
        sessionId: data.sessionId,
        messageId: data.replyMessageId,
      });
    }
    await deps.store.append(sessionStream(data.sessionId), [
      toAppend(
        'ChannelMessageSent',
        {
          ...scope,
          ...(result.externalMessageId === undefined ? {} : { externalMessageId: result.externalMessageId }),
          sentAt: now().toISOString(),
        },
        metadata,
        eventId,
      ),
    ]);
    await deps.connections.recordSendSuccess(data.connectionId);
    return 'sent';
  }
  const error = result.error.slice(0, 1000) || 'send failed';
  if (result.retryable && attempt.retryCount < attempt.retryLimit) {
    log.warn({ error, status: result.status, attempt: attempts }, 'channel send failed; will retry');
    throw new RetryableSendError(error);
  }
  await deps.store.append(sessionStream(data.sessionId), [
    toAppend(
      'ChannelSendFailed',
      {
        ...scope,
        error,
        ...(result.status === undefined ? {} : { status: result.status }),
        retryable: result.retryable,
        failedAt: now().toISOString(),
      },
      metadata,
      eventId,
    ),
  ]);
  if (connection !== null) await deps.connections.recordSendFailure(data.connectionId, error);
  log.error({ error, status: result.status, attempts }, 'channel send failed for good');
  return 'failed';
}
