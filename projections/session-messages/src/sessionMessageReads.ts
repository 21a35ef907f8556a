import { type Pool, readSnapshot } from '@parley/platform';
import type { SessionMessageRow } from './sessionMessagesProjection.js';

/** One message of a transcript, as the route answers it. */
export interface SessionMessageRecord {
  messageId: string;
  role: 'user' | 'agent';
  text: string;
  /** receivedAt (user) or repliedAt (agent), ISO 8601. */
  at: string;
  inReplyTo: string | null;
  agentName: string | null;
  actionSet: Record<string, unknown> | null;
  actionEvent: Record<string, unknown> | null;
  usedFallback: boolean | null;
}

export interface SessionMessageFilter {
  projectId: string;
  sessionId: string;
  limit: number;
  offset: number;
}

export interface SessionMessagePage {
  /** Every message of the session, across pages. */
  total: number;
  messages: SessionMessageRecord[];
}

/** Everything the transcript route reads, as one object the API is given (tests can wrap it). */
export interface SessionMessageReads {
  /** One page of the session's messages in order; null when the session is unknown in the project. */
  listMessages(filter: SessionMessageFilter): Promise<SessionMessagePage | null>;
}

export function createSessionMessageReads(pool: Pool): SessionMessageReads {
  return { listMessages: (filter) => listSessionMessages(pool, filter) };
}

export function toSessionMessageRecord(row: SessionMessageRow): SessionMessageRecord {
  return {
    messageId: row.message_id,
    role: row.role === 'agent' ? 'agent' : 'user',
    text: row.message_text,
    at: row.at.toISOString(),
    inReplyTo: row.in_reply_to,
    agentName: row.agent_name,
    actionSet: (row.action_set as Record<string, unknown> | null) ?? null,
    actionEvent: (row.action_event as Record<string, unknown> | null) ?? null,
    usedFallback: row.used_fallback,
  };
}

/**
 * A page of the session's transcript (order: `at`, then log position, then role and id), read in
 * one repeatable-read snapshot so that `total` and the rows agree. Null when the project has no
 * start and no message of the session.
 */
export async function listSessionMessages(
  pool: Pool,
  filter: SessionMessageFilter,
): Promise<SessionMessagePage | null> {
  const { projectId, sessionId, limit, offset } = filter;
  return readSnapshot(pool, async (client) => {
    const known = await client.query(
      'select 1 from session_message_sessions where project_id = $1 and session_id = $2',
      [projectId, sessionId],
    );
    if (known.rows.length === 0) return null;
    const count = await client.query<{ total: number }>(
      'select count(*)::int as total from session_messages where project_id = $1 and session_id = $2',
      [projectId, sessionId],
    );
    const { rows } = await client.query<SessionMessageRow>(
      `select * from session_messages
        where project_id = $1 and session_id = $2
        order by at, position_commit, position_prepare, role desc, message_id
        limit $3 offset $4`,
      [projectId, sessionId, limit, offset],
    );
    return { total: count.rows[0]?.total ?? 0, messages: rows.map(toSessionMessageRecord) };
  });
}
