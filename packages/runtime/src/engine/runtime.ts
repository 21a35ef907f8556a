import { sessionStream, toAppend } from '@parley/events';
import { WrongExpectedVersionError } from '@parley/eventstore';
import { createAgentStore } from '../agents/store.js';
import { SessionNotFoundError } from '../errors.js';
import { createSuspensionStore } from '../suspensions/suspensionStore.js';
import { newSpanId, newTraceId } from './ids.js';
import { openRealtimeNow } from './realtime/realtimeConversation.js';
import { loadSession } from './session/loadSession.js';
import { createSessionViewCache } from './session/sessionViewCache.js';
import { APPEND_ATTEMPTS } from './turn/recordTurn.js';
import { resumeNow } from './turn/resumeTurn.js';
import { runTurnNow } from './turn/runTurn.js';
import type { RuntimeParts } from './turn/runtimeParts.js';
import type { RunTurnOptions, Runtime, RuntimeDeps, TurnRequest } from './types.js';

export { FALLBACK_REPLY } from './turn/agentLoop.js';
export { DEFAULT_BLOCKED_REPLY } from './turn/guardrailStage.js';
export { DEFAULT_TIMEOUT_REPLY, SuspensionNotRecordedError } from './turn/resumeTurn.js';

/** Default of maxIterations (an agent's model calls per turn), kept under its old name. */
export const MAX_LLM_CALLS_PER_TURN = 5;

/**
 * The turn engine (packages/runtime README "Turns"). A turn is two appends to
 * `session-<sessionId>`: first the user's message (and SessionStarted for a new session), then, in
 * one append, everything the turn produced: its trace events, its LlmCallRecorded facts, its
 * handoffs, a suspension, the AgentReplied and, when the agent ended the conversation, SessionEnded.
 * Its stages live in ./turn (open the session → check the input → record the message → the agent
 * loop → check the output → record).
 */
export function createRuntime(deps: RuntimeDeps): Runtime {
  const now = deps.now ?? (() => new Date());
  const parts: RuntimeParts = {
    pool: deps.pool,
    store: deps.store,
    providers: deps.providers,
    priceCards: deps.priceCards,
    logger: deps.logger,
    agents: deps.agents ?? createAgentStore(deps.pool, deps.secrets),
    now,
    toolFetch: deps.toolFetch,
    suspensions:
      deps.suspensions ??
      (deps.secrets === undefined ? undefined : createSuspensionStore(deps.pool, deps.secrets)),
    publicBaseUrl: deps.publicBaseUrl,
    suspensionTimeoutSeconds: deps.suspensionTimeoutSeconds ?? 86_400,
    sessionViews: createSessionViewCache(),
  };

  /**
   * Turns of one session run one after another in this process (the next message sees the
   * previous reply); across processes, appends retry at the stream's new revision.
   */
  const sessionQueues = new Map<string, Promise<unknown>>();
  function serialized<T>(sessionId: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (sessionId === undefined) return fn();
    const previous = sessionQueues.get(sessionId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => {});
    sessionQueues.set(sessionId, tail);
    void tail.then(() => {
      if (sessionQueues.get(sessionId) === tail) sessionQueues.delete(sessionId);
    });
    return run;
  }

  function runTurn(req: TurnRequest, options: RunTurnOptions = {}) {
    return serialized(req.sessionId, () => runTurnNow(parts, req, options));
  }

  const resume: Runtime['resume'] = async (req) => {
    const record = await parts.suspensions?.get(req.suspensionId);
    return serialized(record?.sessionId, () => {
      // The resumption appends to the session: its next turn reads the stream again.
      if (record != null) parts.sessionViews?.delete(record.sessionId);
      return resumeNow(parts, req);
    });
  };

  async function endSession(
    projectId: string,
    sessionId: string,
    reason = 'api',
  ): Promise<{ ended: boolean; status: string }> {
    const stream = sessionStream(sessionId);
    parts.sessionViews?.delete(sessionId);
    for (let attempt = 1; ; attempt++) {
      const view = await loadSession(deps.store, sessionId);
      if (view === null || view.projectId !== projectId) throw new SessionNotFoundError(sessionId);
      if (view.endedStatus !== null) return { ended: false, status: view.endedStatus };
      const endedAt = now().toISOString();
      const metadata = view.tenantId === undefined ? {} : { tenantId: view.tenantId };
      try {
        await deps.store.append(
          stream,
          [
            toAppend(
              'TraceEventRecorded',
              {
                sessionId,
                projectId,
                traceId: newTraceId(),
                spanId: newSpanId(),
                eventType: 'state_change',
                name: 'session_state',
                status: 'ok',
                startedAt: endedAt,
                attributes: { from: 'active', to: 'ended', reason },
              },
              metadata,
            ),
            toAppend('SessionEnded', { sessionId, projectId, status: 'ended', reason, endedAt }, metadata),
          ],
          { expectedRevision: view.revision },
        );
        return { ended: true, status: 'ended' };
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError) || attempt >= APPEND_ATTEMPTS) throw err;
      }
    }
  }

  return { runTurn, resume, endSession, openRealtime: (req) => openRealtimeNow(parts, req) };
}
