import { type EventData, sessionStream, timestampSchema, toAppend } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool, PoolClient } from '@parley/platform';
import type PgBoss from 'pg-boss';
import type { ChannelAdapter } from '../adapter.js';
import type {
  ChannelHttp,
  OutgoingMessage,
  OutgoingReply,
  ResolvedConnection,
  SendResult,
} from '../types.js';
import { deliveryEventId, derivedUuid, sendJobId } from './ids.js';
import { CHANNEL_SEND_QUEUE, type InboundJobData, type SendJobData } from './jobs.js';

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
}
export interface ChannelTurnResult {
  sessionId: string;
  reply: { messageId: string; text: string; actionSet?: EventData<'AgentReplied'>['actionSet'] };
}

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
}

/** An adapter's message time the log would refuse (not ISO 8601 with a zone) is not recorded. */
const isIsoTime = (value: string): boolean => timestampSchema.safeParse(value).success;

/** Runtime errors after which a conversation starts a new session (the mapped one ended or is gone). */
const NEW_SESSION_ERRORS = new Set(['SessionEndedError', 'SessionNotFoundError']);
/**
 * Runtime errors a retry cannot cure (and that may already have recorded the user's message): the
 * message is marked answered without a reply instead of being retried.
 */
const FINAL_TURN_ERRORS = new Set(['ProviderFailedError', 'AgentNotFoundError', 'ProjectNotFoundError']);

const httpOf = (deps: InboundWorkerDeps, connection: ResolvedConnection): ChannelHttp => {
  const base = connection.settings.apiBaseUrl;
  return {
    fetch: deps.fetch ?? globalThis.fetch,
    ...(typeof base === 'string' && base !== '' ? { apiBaseUrl: base } : {}),
  };
};

/** A 64-bit advisory lock key for one conversation (serializes its turns across workers). */
function conversationLockKey(connectionId: string, externalSessionKey: string): string {
  const hex = derivedUuid('conversation-lock', JSON.stringify([connectionId, externalSessionKey])).replaceAll(
    '-',
    '',
  );
  return BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)).toString();
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
  const adapter = deps.adapters.get(data.channelType) ?? deps.adapters.get(connection.channelType);
  if (adapter === undefined) throw new Error(`no adapter for channel type ${data.channelType}`);

  const lockClient: PoolClient = await pool.connect();
  const lockKey = conversationLockKey(connectionId, message.externalSessionKey);
  try {
    await lockClient.query('select pg_advisory_lock($1::bigint)', [lockKey]);
    const row = await lockClient.query<{ processed: boolean }>(
      `select processed_at is not null as processed from channel_inbound_messages
       where connection_id = $1 and external_message_id = $2`,
      [connectionId, message.externalMessageId],
    );
    if (row.rows[0]?.processed === true) {
      log.debug('inbound message already answered');
      return;
    }

    // Typing indicator while the agent works (best effort: never fails the job).
    if (adapter.sendTypingIndicator) {
      await adapter
        .sendTypingIndicator(
          connection,
          message.externalSessionKey,
          message.metadata,
          httpOf(deps, connection),
        )
        .catch((err: unknown) => log.warn({ err }, 'typing indicator failed'));
    }

    const mapped = await lockClient.query<{ session_id: string }>(
      'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
      [connectionId, message.externalSessionKey],
    );
    const base: ChannelTurnRequest = {
      projectId: connection.projectId,
      tenantId: connection.tenantId,
      message: message.text,
      channel: connection.channelType,
      channelType: connection.channelType,
      ...(connection.agentName === null ? {} : { agentName: connection.agentName }),
      ...(message.channelUserId === undefined ? {} : { channelUserId: message.channelUserId }),
      ...(message.actionEvent === undefined ? {} : { actionEvent: message.actionEvent }),
      externalMessageId: message.externalMessageId,
      channelMetadata: message.metadata,
      ...(isIsoTime(message.timestamp) ? { sentAt: message.timestamp } : {}),
      ...(message.messageMetadata === undefined ? {} : { messageMetadata: message.messageMetadata }),
    };
    const existing = mapped.rows[0]?.session_id;
    let result: ChannelTurnResult;
    try {
      try {
        result = await deps.runTurn(existing === undefined ? base : { ...base, sessionId: existing });
      } catch (err) {
        if (existing === undefined || !(err instanceof Error) || !NEW_SESSION_ERRORS.has(err.name)) throw err;
        // The conversation's session ended: the next message starts a new one.
        result = await deps.runTurn(base);
      }
    } catch (err) {
      if (!(err instanceof Error) || !FINAL_TURN_ERRORS.has(err.name)) throw err;
      log.warn({ error: err.name }, 'inbound message not answered: the turn failed');
      await lockClient.query(
        `update channel_inbound_messages set processed_at = now()
         where connection_id = $1 and external_message_id = $2`,
        [connectionId, message.externalMessageId],
      );
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
    await lockClient.query('begin');
    try {
      await lockClient.query(
        `insert into channel_sessions (connection_id, external_session_key, session_id) values ($1, $2, $3)
         on conflict (connection_id, external_session_key)
         do update set session_id = excluded.session_id, updated_at = now()`,
        [connectionId, message.externalSessionKey, result.sessionId],
      );
      await lockClient.query(
        `update channel_inbound_messages set session_id = $3, reply_message_id = $4, processed_at = now()
         where connection_id = $1 and external_message_id = $2`,
        [connectionId, message.externalMessageId, result.sessionId, result.reply.messageId],
      );
      const id = sendJobId(connectionId, result.reply.messageId);
      const sent = await boss.send(CHANNEL_SEND_QUEUE, send as unknown as object, {
        id,
        db: { executeSql: (text, values) => lockClient.query(text, values) },
      });
      if (sent === null) throw new Error(`the ${CHANNEL_SEND_QUEUE} queue does not exist`);
      await lockClient.query('commit');
    } catch (err) {
      await lockClient.query('rollback').catch(() => {});
      throw err;
    }
  } finally {
    // A client whose unlock failed still holds the lock: it is destroyed, not returned to the pool.
    const unlocked = await lockClient.query('select pg_advisory_unlock($1::bigint)', [lockKey]).then(
      () => true,
      () => false,
    );
    lockClient.release(!unlocked);
  }
}

export type SendOutcome = 'sent' | 'retry' | 'failed';

/** An attempt failed and another one is due: pg-boss retries the job (with backoff). */
export class RetryableSendError extends Error {
  override readonly name = 'RetryableSendError';
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
  const adapter = deps.adapters.get(data.channelType);
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
      result = await adapter.sendResponse(message, connection, httpOf(deps, connection));
    } catch (err) {
      // A thrown error (network failure, timeout) is worth retrying; its text may hold a URL, keep the name.
      result = { ok: false, retryable: true, error: err instanceof Error ? `${err.name}` : 'send failed' };
    }
  }

  if (result.ok) {
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
