import { parseEvent, sessionStream } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import { evolveSession, type SessionView } from './sessionView.js';

/**
 * The session's view: its stream read and folded by evolveSession (events of unknown types, from a
 * newer writer, are skipped). Null when the stream does not exist or holds no SessionStarted.
 */
export async function loadSession(store: EventStore, sessionId: string): Promise<SessionView | null> {
  let view: SessionView | null = null;
  let revision = -1n;
  for await (const recorded of store.readStream(sessionStream(sessionId))) {
    revision = recorded.revision;
    const event = parseEvent(recorded);
    if (!event.known) continue;
    view = evolveSession(view, event);
  }
  if (view !== null) view.revision = revision;
  return view;
}
