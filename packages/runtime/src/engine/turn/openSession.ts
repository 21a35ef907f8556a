import type { Environment } from '@parley/events';
import type { RemoteAgent } from '../../agents/schema.js';
import type { Agent } from '../../agents/store.js';
import { SessionEndedError, SessionNotFoundError } from '../../errors.js';
import type { LlmMessage } from '../../providers/types.js';
import { newSessionId } from '../ids.js';
import { loadSession } from '../session/loadSession.js';
import { historyForModel, type SessionView } from '../session/sessionView.js';
import type { TurnRequest } from '../types.js';
import type { RuntimeParts } from './runtimeParts.js';

/** Who answers a message, and where: an existing session's view, or a new session's settings. */
export interface OpenedSession {
  sessionId: string;
  created: boolean;
  /** The local agent that answers, or, when a remote agent answers, the local agent that handed off to it. */
  agent: Agent;
  /** The remote (A2A) agent the session was handed to, when one answers. */
  remote: RemoteAgent | null;
  channel: string;
  channelType: string | undefined;
  channelUserId: string | undefined;
  environment: Environment;
  history: LlmMessage[];
  revision: bigint | 'no_stream';
  /** The existing session's view the turn started from; null for a new session. */
  view: SessionView | null;
}

/**
 * Stage 1 of a turn: the session the message belongs to. An existing one must be in the project
 * and not ended (SessionNotFoundError, SessionEndedError); its current agent answers (the last
 * AgentHandedOff's target). A new one starts with the named agent, else the project's oldest.
 * `known`: the existing session's view when the caller has it already (or is reading it).
 */
export async function openSession(
  parts: RuntimeParts,
  req: TurnRequest,
  known?: SessionView | Promise<SessionView | null>,
): Promise<OpenedSession> {
  if (req.sessionId === undefined) {
    const agent = await parts.agents.resolve(req.projectId, req.agentName);
    return {
      sessionId: newSessionId(),
      created: true,
      agent,
      remote: null,
      channel: req.channel ?? 'api',
      channelType: req.channelType,
      channelUserId: req.channelUserId,
      environment: req.environment ?? agent.environment ?? 'dev',
      history: [],
      revision: 'no_stream',
      view: null,
    };
  }
  const view = await (known ?? loadSession(parts.store, req.sessionId));
  if (view === null || view.projectId !== req.projectId) throw new SessionNotFoundError(req.sessionId);
  if (view.endedStatus !== null) throw new SessionEndedError(req.sessionId, view.endedStatus);
  const target = view.agentTarget;
  const agent = await parts.agents.resolve(
    req.projectId,
    target.kind === 'remote' ? target.via : view.agentName,
  );
  const remote =
    target.kind === 'remote'
      ? (agent.handoffs.remote.find((r) => r.name === view.agentName) ?? {
          // The handing-off agent no longer lists it: the URL recorded at the handoff still answers.
          name: view.agentName,
          description: '',
          url: target.url,
        })
      : null;
  return {
    sessionId: req.sessionId,
    created: false,
    agent,
    remote,
    channel: view.channel,
    channelType: view.channelType,
    channelUserId: view.channelUserId,
    environment: view.environment,
    history: historyForModel(view),
    revision: view.revision,
    view,
  };
}
