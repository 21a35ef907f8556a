import type { SyncOutcome } from '../adapter.js';
import type { NormalizedMessage } from '../types.js';

/** What a turn's record needs of its result (a ChannelTurnResult). */
export interface RecordedTurn {
  sessionId: string;
  reply: { messageId: string };
}

/**
 * The CTEs that record a turn's outcome (parameters `$p` to `$p+5`, turnRecordValues' order):
 * `mapped` maps the conversation key to the turn's session (when it produced one), `answered`
 * marks the dedupe row answered with the reply's id and, for synchronous channels, the outcome
 * its response was rendered from.
 */
export function turnRecordCtes(p: number): string {
  const [connection, message, session, reply, outcome, key] = [0, 1, 2, 3, 4, 5].map((i) => `$${p + i}`);
  return `mapped as (
     insert into channel_sessions (connection_id, external_session_key, session_id)
     select ${connection}, ${key}, ${session} where ${session}::text is not null
     on conflict (connection_id, external_session_key)
     do update set session_id = excluded.session_id, updated_at = now()),
   answered as (
     update channel_inbound_messages
     set session_id = coalesce(${session}, session_id), reply_message_id = coalesce(${reply}, reply_message_id),
         processed_at = now(), sync_outcome = coalesce(${outcome}::jsonb, sync_outcome)
     where connection_id = ${connection} and external_message_id = ${message}
     returning 1)`;
}

export function turnRecordValues(
  connectionId: string,
  message: NormalizedMessage,
  result: RecordedTurn | null,
  syncOutcome: SyncOutcome | undefined,
): unknown[] {
  return [
    connectionId,
    message.externalMessageId,
    result?.sessionId ?? null,
    result?.reply.messageId ?? null,
    syncOutcome === undefined ? null : JSON.stringify(syncOutcome),
    message.externalSessionKey,
  ];
}
