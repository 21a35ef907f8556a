/**
 * The session list's lastActivityAt as the API shows it (a row without activity shows its start),
 * over the summary's columns: a key of an index, and what listSessions orders by.
 */
export const LAST_ACTIVITY = 'coalesce(last_activity_at, created_at)';

/**
 * lastActivityAt - createdAt of a row (an interval; negative when an event's time came before the
 * start's). Its least and greatest in a project bound the lastActivityAt of any date range's rows.
 */
export const ACTIVITY_SPAN = `${LAST_ACTIVITY} - created_at`;

/** The session list's messageCount.total over the summary's columns. */
export const MESSAGE_COUNT = 'user_messages + agent_messages';
