import type { AppendResult, EventToAppend, ExpectedRevision } from '../types.js';
import { checkAppendInput, eventsPayload, type Queryable } from './append.js';

/** One append of a tryAppendAll call. */
export interface StreamAppend {
  stream: string;
  events: readonly EventToAppend[];
  expectedRevision?: ExpectedRevision;
}

export type AppendAllAttempt =
  | { kind: 'appended'; results: AppendResult[] }
  | { kind: 'wrong_expected_version'; stream: string; expected: ExpectedRevision }
  | { kind: 'duplicate_event_id' }
  | { kind: 'order_conflict' };

const APPEND_MANY_CALL = `select next_revision::text, last_position::text, xact_id::text
  from parley_append_many($1::text[], $2::text[], $3::jsonb)`;

/**
 * Several appends in one call of `parley_append_many` (migrations/0003), one statement: all or
 * nothing. Refused (an expected revision, or an event id already in the log): nothing written.
 */
export async function tryAppendMany(
  db: Queryable,
  appends: readonly StreamAppend[],
): Promise<AppendAllAttempt> {
  const streams: string[] = [];
  const expected: string[] = [];
  const groups: string[] = [];
  for (const a of appends) {
    const revision = a.expectedRevision ?? 'any';
    checkAppendInput(a.stream, a.events, revision);
    streams.push(a.stream);
    expected.push(String(revision));
    groups.push(eventsPayload(a.events));
  }
  try {
    const { rows } = await db.query<{ next_revision: string; last_position: string; xact_id: string }>({
      name: 'parley_append_many',
      text: APPEND_MANY_CALL,
      values: [streams, expected, `[${groups.join(',')}]`],
    });
    return {
      kind: 'appended',
      results: rows.map((row) => ({
        nextRevision: BigInt(row.next_revision),
        position: { commit: BigInt(row.xact_id), prepare: BigInt(row.last_position) },
      })),
    };
  } catch (err) {
    const e = err as { code?: unknown; constraint?: unknown; detail?: unknown } | null;
    if (e?.code === 'PLA02') {
      const refused = appends.find((a) => a.stream === e.detail) ?? appends[0]!;
      return {
        kind: 'wrong_expected_version',
        stream: refused.stream,
        expected: refused.expectedRevision ?? 'any',
      };
    }
    if (e?.code === '23505' && e.constraint === 'events_event_id_key') return { kind: 'duplicate_event_id' };
    if (e?.code === 'PLA01') return { kind: 'order_conflict' };
    throw err;
  }
}
