import type { Pool } from '@parley/platform';

export type ReplyOutcome = 'sent' | 'suppressed';

/** The email channel's state in PostgreSQL (tables of channelEmailMigrations). */
export interface EmailThreadStore {
  /**
   * The session key of the first of `messageIds` (in the order given) known on the connection, or
   * null: In-Reply-To is passed first, then References from the newest.
   */
  sessionKeyOf(connectionId: string, messageIds: readonly string[]): Promise<string | null>;
  /** Maps a Message-ID to a conversation; the first mapping of an id wins. */
  record(
    connectionId: string,
    messageId: string,
    sessionKey: string,
    direction: 'inbound' | 'outbound',
  ): Promise<void>;
  /** True when `messageId` is one this connection sent (a copy of our own mail came back). */
  isOutbound(connectionId: string, messageId: string): Promise<boolean>;
  /**
   * Claims the auto-reply slot of `address` for `replyMessageId`: true when no other reply was sent
   * to the address within `thresholdSeconds` before `now` (or the slot already is this reply's, a retry).
   */
  claimReplySlot(
    connectionId: string,
    address: string,
    replyMessageId: string,
    now: Date,
    thresholdSeconds: number,
  ): Promise<boolean>;
  /** The recorded outcome of a reply, if any (a send job run again does not send twice). */
  outcomeOf(connectionId: string, replyMessageId: string): Promise<ReplyOutcome | null>;
  recordOutcome(
    connectionId: string,
    replyMessageId: string,
    outcome: { emailMessageId: string; recipient: string; outcome: ReplyOutcome },
  ): Promise<void>;
}

export function createEmailThreadStore(pool: Pool): EmailThreadStore {
  return {
    async sessionKeyOf(connectionId, messageIds) {
      if (messageIds.length === 0) return null;
      const { rows } = await pool.query<{ message_id: string; external_session_key: string }>(
        `select message_id, external_session_key from channel_email_threads
         where connection_id = $1 and message_id = any($2::text[])`,
        [connectionId, [...messageIds]],
      );
      const found = new Map(rows.map((r) => [r.message_id, r.external_session_key]));
      for (const id of messageIds) {
        const key = found.get(id);
        if (key !== undefined) return key;
      }
      return null;
    },
    async record(connectionId, messageId, sessionKey, direction) {
      await pool.query(
        `insert into channel_email_threads (connection_id, message_id, external_session_key, direction)
         values ($1, $2, $3, $4) on conflict do nothing`,
        [connectionId, messageId, sessionKey, direction],
      );
    },
    async isOutbound(connectionId, messageId) {
      const { rowCount } = await pool.query(
        `select 1 from channel_email_threads
         where connection_id = $1 and message_id = $2 and direction = 'outbound'`,
        [connectionId, messageId],
      );
      return (rowCount ?? 0) > 0;
    },
    async claimReplySlot(connectionId, address, replyMessageId, now, thresholdSeconds) {
      const { rowCount } = await pool.query(
        `insert into channel_email_cooldowns (connection_id, address, reply_message_id, replied_at)
         values ($1, $2, $3, $4)
         on conflict (connection_id, address) do update
           set reply_message_id = excluded.reply_message_id,
               replied_at = case when channel_email_cooldowns.reply_message_id = excluded.reply_message_id
                            then channel_email_cooldowns.replied_at else excluded.replied_at end
           where channel_email_cooldowns.reply_message_id = excluded.reply_message_id
              or channel_email_cooldowns.replied_at
                 <= excluded.replied_at - make_interval(secs => $5::double precision)`,
        [connectionId, address, replyMessageId, now, thresholdSeconds],
      );
      return (rowCount ?? 0) > 0;
    },
    async outcomeOf(connectionId, replyMessageId) {
      const { rows } = await pool.query<{ outcome: ReplyOutcome }>(
        'select outcome from channel_email_outbound where connection_id = $1 and reply_message_id = $2',
        [connectionId, replyMessageId],
      );
      return rows[0]?.outcome ?? null;
    },
    async recordOutcome(connectionId, replyMessageId, o) {
      await pool.query(
        `insert into channel_email_outbound (connection_id, reply_message_id, email_message_id, recipient, outcome)
         values ($1, $2, $3, $4, $5) on conflict do nothing`,
        [connectionId, replyMessageId, o.emailMessageId, o.recipient, o.outcome],
      );
    },
  };
}
