import type { StatementAppend } from '@parley/eventstore';
import type { JobStatement } from '../inbound/jobInStatement.js';

/** Where the message goes: a conversation to start under the caller's key, or one that exists. */
export type Target =
  | { kind: 'start'; callerKey: string; conversation: Conversation }
  | { kind: 'existing'; conversation: Conversation };

export interface Conversation {
  sessionKey: string;
  newConversation: boolean;
  sessionId: string | null;
}

/** What the statement writes: the message's inbound row (its dedupe row), its turn job's id. */
export interface MessageRow {
  subscriptionId: string;
  projectId: string;
  messageId: string;
  jobId: string;
  acceptedAt: Date;
}

/** The statement's answer: the inbound row was written (1) or not (0: the caller's key was taken). */
export interface MessageWritten {
  inbound: number;
  appended: number;
}

/**
 * The statement that writes the message: its inbound row (and, for a new conversation, the
 * conversation first), its HttpAsyncMessageAccepted event when `append` is given (the log's
 * append function, called only when the row was written) and, through sendJobInStatement, the
 * turn job. One statement, so all or nothing without a transaction. Two first messages with the
 * same caller key at once: the unique (subscription_id, caller_key) makes the second wait for the
 * first's commit, then write nothing (no row, event or job; `inbound` 0); if the first failed,
 * the second creates it.
 */
export function messageStatement(target: Target, row: MessageRow, append?: StatementAppend): JobStatement {
  const values: unknown[] = [];
  // Parameter $1 is the job's (sendJobInStatement); the statement's own start at $2.
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length + 1}`;
  };
  const subscription = param(row.subscriptionId);
  const inboundValues = `${param(row.messageId)}, ${target.kind === 'start' ? 'canonical_key' : param(target.conversation.sessionKey)}, ${param(row.jobId)}, ${param(row.acceptedAt)}`;
  const ctes: string[] = [];
  if (target.kind === 'start') {
    ctes.push(`conversation as (
       insert into http_async_conversations (canonical_key, subscription_id, project_id, caller_key)
       values (${param(target.conversation.sessionKey)}, ${subscription}, ${param(row.projectId)}, ${param(target.callerKey)})
       on conflict (subscription_id, caller_key) do nothing
       returning canonical_key)`);
    ctes.push(`inbound as (
       insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id, received_at)
       select ${subscription}, ${inboundValues} from conversation returning 1)`);
  } else {
    ctes.push(`inbound as (
       insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id, received_at)
       values (${subscription}, ${inboundValues}) returning 1)`);
  }
  let appended = '0';
  if (append !== undefined) {
    const [stream, expected, events] = append.values;
    // Lateral on the inbound row: the function runs only when the row was written.
    ctes.push(`appended as (
       select a.xact_id from (select ${param(stream)}::text as stream from inbound) g
       cross join lateral ${append.call({ stream: 'g.stream', expected: param(expected), events: param(events) })} a)`);
    appended = '(select count(*) from appended)::int';
  }
  return {
    ctes: ctes.join(',\n     '),
    when: target.kind === 'start' ? 'exists (select 1 from inbound)' : 'true',
    select: `(select count(*) from inbound)::int as inbound, ${appended} as appended`,
    values,
  };
}
