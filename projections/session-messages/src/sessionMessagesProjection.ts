import {
  type AgentRepliedData,
  type MessageReceivedData,
  parseEvent,
  type SessionStartedData,
} from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';
import { defineProjection, type RowOf } from '@parley/projection-runner';

const nullableText = { type: 'text', nullable: true } as const;
const nullableJson = { type: 'jsonb', nullable: true } as const;

/** The events the projection reads, upcast and validated. */
export type SessionMessagesEvent =
  | { type: 'SessionStarted'; data: SessionStartedData }
  | { type: 'MessageReceived'; data: MessageReceivedData }
  | { type: 'AgentReplied'; data: AgentRepliedData };

// Both tables' keys and evolve read the same event: parse it once per event object.
const parsed = new WeakMap<RecordedEvent, SessionMessagesEvent | null>();

/**
 * The event as the projection reads it; null for other types. Invalid data throws: the runner stops
 * the projection there (a skipped message would be a hole in the transcript).
 */
export function sessionMessagesEventOf(event: RecordedEvent): SessionMessagesEvent | null {
  const cached = parsed.get(event);
  if (cached !== undefined) return cached;
  const result = parseEvent(event);
  let value: SessionMessagesEvent | null = null;
  if (result.known) {
    if (result.type === 'SessionStarted') value = { type: result.type, data: result.data };
    else if (result.type === 'MessageReceived') value = { type: result.type, data: result.data };
    else if (result.type === 'AgentReplied') value = { type: result.type, data: result.data };
  }
  parsed.set(event, value);
  return value;
}

/** Whether the row already holds a record at or before this event's log position (first record wins). */
function recordedNoLaterThan(
  row: { position_commit: number; position_prepare: number },
  event: RecordedEvent,
): boolean {
  const commit = Number(event.position.commit);
  const prepare = Number(event.position.prepare);
  return row.position_commit < commit || (row.position_commit === commit && row.position_prepare <= prepare);
}

/**
 * The session transcript read model (issue 10 B):
 * - `session_messages`: one row per message, a user's (MessageReceived, role `user`) or an agent's
 *   (AgentReplied, role `agent`), keyed by project, session, role and message id. A message recorded
 *   twice (a retried append) keeps its first record, by log position, so the row does not depend on
 *   replays or on the order batches are cut in.
 * - `session_message_sessions`: the sessions the transcript knows (a start or any message), so that
 *   an unknown session is 404 and a started session without messages an empty list.
 * Text is stored as recorded; it is never logged.
 */
export const sessionMessagesProjection = defineProjection({
  name: 'session-messages',
  version: 1,
  eventTypes: ['SessionStarted', 'MessageReceived', 'AgentReplied'],
  tables: {
    session_messages: {
      columns: {
        project_id: 'text',
        session_id: 'text',
        role: 'text',
        message_id: 'text',
        event_id: 'text',
        /** receivedAt (user) or repliedAt (agent). */
        at: 'timestamptz',
        position_commit: 'bigint',
        position_prepare: 'bigint',
        message_text: 'text',
        in_reply_to: nullableText,
        agent_name: nullableText,
        action_set: nullableJson,
        action_event: nullableJson,
        used_fallback: { type: 'boolean', nullable: true },
      },
      primaryKey: ['project_id', 'session_id', 'role', 'message_id'],
      indexes: [
        // A session's transcript in order: time, then log position.
        { columns: ['project_id', 'session_id', 'at', 'position_commit', 'position_prepare'] },
      ],
    },
    session_message_sessions: {
      columns: {
        project_id: 'text',
        session_id: 'text',
        /** The earliest SessionStarted's startedAt; null while only messages are known. */
        started_at: { type: 'timestamptz', nullable: true },
      },
      primaryKey: ['project_id', 'session_id'],
    },
  },
  handlers: {
    session_messages: {
      keys: (event) => {
        const e = sessionMessagesEventOf(event);
        if (e === null || e.type === 'SessionStarted') return [];
        return [
          {
            project_id: e.data.projectId,
            session_id: e.data.sessionId,
            role: e.type === 'MessageReceived' ? 'user' : 'agent',
            message_id: e.data.messageId,
          },
        ];
      },
      evolve: (row, event, key) => {
        const e = sessionMessagesEventOf(event);
        if (e === null || e.type === 'SessionStarted') return row;
        if (row !== undefined && recordedNoLaterThan(row, event)) return row;
        const common = {
          ...key,
          event_id: event.eventId,
          position_commit: Number(event.position.commit),
          position_prepare: Number(event.position.prepare),
          message_text: e.data.text,
        };
        if (e.type === 'MessageReceived') {
          return {
            ...common,
            at: new Date(e.data.receivedAt),
            in_reply_to: null,
            agent_name: null,
            action_set: null,
            action_event: e.data.actionEvent ?? null,
            used_fallback: null,
          };
        }
        return {
          ...common,
          at: new Date(e.data.repliedAt),
          in_reply_to: e.data.inReplyTo ?? null,
          agent_name: e.data.agentName,
          action_set: e.data.actionSet ?? null,
          action_event: null,
          used_fallback: e.data.usedFallback ?? null,
        };
      },
    },
    session_message_sessions: {
      keys: (event) => {
        const e = sessionMessagesEventOf(event);
        return e === null ? [] : [{ project_id: e.data.projectId, session_id: e.data.sessionId }];
      },
      evolve: (row, event, key) => {
        const e = sessionMessagesEventOf(event);
        const known = row ?? { ...key, started_at: null };
        if (e?.type !== 'SessionStarted') return known;
        // Several starts of one session (a retried append): the earliest startedAt wins.
        const startedAt = new Date(e.data.startedAt);
        if (known.started_at !== null && known.started_at.getTime() <= startedAt.getTime()) return known;
        return { ...known, started_at: startedAt };
      },
    },
  },
});

export type SessionMessageRow = RowOf<typeof sessionMessagesProjection.tables.session_messages>;
export type SessionMessageSessionRow = RowOf<
  typeof sessionMessagesProjection.tables.session_message_sessions
>;
