import type { ParleyEvent } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { evolveSession, HISTORY_LIMIT, type SessionView } from './sessionView.js';

/** Sessions whose view one process keeps (least recently used dropped first). */
export const SESSION_VIEW_CACHE_SIZE = 10_000;

/**
 * The views of the sessions this process ran the last turn of, each as of the revision its own last
 * append returned: the next turn of the session starts from it instead of reading and parsing the
 * whole stream again. A cached view is only ever a guess that is checked: the turn's first append
 * expects the cached revision, so it succeeds only when nothing was appended since (the log is
 * append-only), and a conflict makes the turn start again from the log (StaleSessionViewError).
 */
export interface SessionViewCache {
  /** A copy of the cached view (a turn may fold events into it). */
  get(sessionId: string): SessionView | undefined;
  set(sessionId: string, view: SessionView): void;
  delete(sessionId: string): void;
}

export function createSessionViewCache(max = SESSION_VIEW_CACHE_SIZE): SessionViewCache {
  const views = new Map<string, SessionView>();
  return {
    get(sessionId) {
      const view = views.get(sessionId);
      if (view === undefined) return undefined;
      views.delete(sessionId);
      views.set(sessionId, view);
      return copyView(view);
    },
    set(sessionId, view) {
      views.delete(sessionId);
      // A turn sends the model the last HISTORY_LIMIT messages: older ones are not kept.
      views.set(sessionId, { ...view, history: view.history.slice(-HISTORY_LIMIT) });
      if (views.size > max) views.delete(views.keys().next().value as string);
    },
    delete(sessionId) {
      views.delete(sessionId);
    },
  };
}

/** A copy whose history and suspensions can change without changing `view`'s. */
export function copyView(view: SessionView): SessionView {
  return { ...view, history: [...view.history], suspensions: new Map(view.suspensions) };
}

/**
 * `view` (a copy; null before the session's first events) with the events this process has just appended after it folded in, exactly as a
 * read of the stream would fold them (toAppend's data is the schema's parse, what parseEvent returns).
 */
export function foldAppended(
  view: SessionView | null,
  events: readonly EventToAppend[],
  revision: bigint,
): SessionView {
  let next: SessionView | null = view === null ? null : copyView(view);
  for (const event of events) next = evolveSession(next, event as unknown as ParleyEvent);
  if (next === null) throw new Error('a session view folded to nothing');
  next.revision = revision;
  return next;
}

/** A turn started from a cached view that was no longer the stream's state: it starts again from the log. */
export class StaleSessionViewError extends Error {
  constructor(sessionId: string) {
    super(`the cached view of session ${sessionId} is stale`);
    this.name = 'StaleSessionViewError';
  }
}
