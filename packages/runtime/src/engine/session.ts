import { type Environment, sessionStream } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { LlmMessage } from '../providers/types.js';

/** What a turn needs to know about an existing session, rebuilt from its stream. */
export interface SessionState {
  projectId: string;
  tenantId: string | undefined;
  /** The agent that answers next: the starting agent, or the last successful handoff's target. */
  agentName: string;
  channel: string;
  channelType: string | undefined;
  environment: Environment;
  /** The end state, when the session has ended. */
  endedStatus: string | null;
  /** The conversation so far (user and agent messages, oldest first). */
  history: LlmMessage[];
  /** Revision of the stream's last event (the next append's expected revision). */
  revision: bigint;
}

/** Messages of earlier turns sent to the model; older ones are left out. */
export const HISTORY_LIMIT = 50;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Null when the stream does not exist or holds no SessionStarted. */
export async function loadSession(store: EventStore, sessionId: string): Promise<SessionState | null> {
  let state: SessionState | null = null;
  let revision = -1n;
  for await (const event of store.readStream(sessionStream(sessionId))) {
    revision = event.revision;
    const d = event.data;
    if (event.type === 'SessionStarted') {
      state = {
        projectId: String(d.projectId),
        tenantId: str(d.tenantId),
        agentName: String(d.agentName),
        channel: String(d.channel),
        channelType: str(d.channelType),
        environment: d.environment as Environment,
        endedStatus: null,
        history: [],
        revision: 0n,
      };
      continue;
    }
    if (state === null) continue;
    switch (event.type) {
      case 'MessageReceived':
        state.history.push({ role: 'user', content: String(d.text) });
        break;
      case 'AgentReplied':
        state.history.push({ role: 'assistant', content: String(d.text) });
        break;
      case 'SessionEnded':
        state.endedStatus = String(d.status);
        break;
      case 'SessionArchived':
        state.endedStatus = 'archived';
        break;
      case 'TraceEventRecorded':
        if (d.eventType === 'handoff' && d.status === 'ok' && typeof d.name === 'string')
          state.agentName = d.name;
        break;
      default:
        break;
    }
  }
  if (state === null) return null;
  state.revision = revision;
  if (state.history.length > HISTORY_LIMIT) state.history = state.history.slice(-HISTORY_LIMIT);
  return state;
}
