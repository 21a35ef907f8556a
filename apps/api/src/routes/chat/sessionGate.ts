import { randomUUID } from 'node:crypto';
import {
  type Caller,
  callerReaches,
  callerSoleProject,
  HttpError,
  projectNotFound,
  type SessionLimits,
} from '@parley/http';
import { SessionNotFoundError } from '@parley/runtime';
import type { FastifyBaseLogger } from 'fastify';
import type { SessionScope } from './options.js';

/**
 * The project a turn or an end request acts on. A body `projectId` must be
 * one the caller reaches; a session alone is looked up only when the caller
 * reaches several projects (a user JWT), and a session outside them is "not
 * found", exactly as one that does not exist. The runtime then checks that
 * the session belongs to that project and the project to the caller's tenant.
 * An SDK token reaches only the sessions its end user (`sub`) started: any
 * other is "not found" too.
 */
export async function resolveProject(
  caller: Caller,
  target: { projectId?: string | undefined; sessionId?: string | undefined },
  sessionScope: (sessionId: string) => Promise<SessionScope | null>,
): Promise<string> {
  if (caller.kind === 'sdkToken' && target.sessionId !== undefined) {
    const scope = await sessionScope(target.sessionId);
    if (scope === null || scope.channelUserId !== caller.subject) {
      throw new SessionNotFoundError(target.sessionId);
    }
  }
  if (target.projectId !== undefined) {
    if (!callerReaches(caller, target.projectId)) throw projectNotFound();
    return target.projectId;
  }
  const sessionId = target.sessionId;
  if (sessionId === undefined) throw projectNotFound();
  const sole = callerSoleProject(caller);
  if (sole !== undefined) return sole;
  const scope = await sessionScope(sessionId);
  if (
    scope === null ||
    !callerReaches(caller, scope.projectId) ||
    (scope.tenantId !== undefined && scope.tenantId !== caller.tenantId)
  ) {
    throw new SessionNotFoundError(sessionId);
  }
  return scope.projectId;
}

/** A message admitted under the session limits; tell it how the turn went. */
export interface Admission {
  /** The turn answered: count a new session under its id, stop counting an ended one. */
  settle(result: { sessionId: string; created: boolean; ended: unknown }): Promise<void>;
  /** The turn failed: a new session's reservation is given back. */
  fail(): Promise<void>;
}

/** 429 in the platform's rate-limited body `{ error, retryAfterMs }` (spec 000 §7), with Retry-After. */
function limitExceeded(message: string, retryAfterMs: number): HttpError {
  return new HttpError('RATE_LIMIT_EXCEEDED', 429, message, {
    envelope: 'rateLimited',
    retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)),
  });
}

export const SESSION_RATE_MESSAGE = 'Too many messages in this session';
export const CONCURRENT_SESSIONS_MESSAGE = 'Too many concurrent sessions for this tenant';

/**
 * The session limits of spec 000 §8 around one turn: the per-session message
 * rate (a fixed one-minute window per session) and the per-tenant concurrent
 * sessions (sessions active within the window). A new session has no id
 * before the runtime starts it, so it is admitted under a reservation renamed
 * once the turn answers; its first message then counts in its rate window. A
 * limiter that fails (Redis down) lets the message through and logs: an
 * outage of the limiter must not become an outage of the conversation.
 */
export function createSessionGate(limits: SessionLimits) {
  const RATE_WINDOW_MS = 60_000;

  async function guarded<T>(
    log: FastifyBaseLogger,
    what: string,
    run: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await run();
    } catch (err) {
      log.warn({ err }, `${what} unavailable; message allowed`);
      return undefined;
    }
  }

  return {
    async admit(log: FastifyBaseLogger, tenantId: string, sessionId: string | undefined): Promise<Admission> {
      if (sessionId !== undefined) {
        const rate = await guarded(log, 'session message rate limiter', () =>
          limits.messageRate.consume(`session:${sessionId}`, limits.messagesPerMinute, RATE_WINDOW_MS),
        );
        if (rate !== undefined && !rate.allowed) {
          throw limitExceeded(SESSION_RATE_MESSAGE, rate.resetAt - Date.now());
        }
      }
      const member = sessionId ?? `new:${randomUUID()}`;
      const active = await guarded(log, 'concurrent sessions limiter', () =>
        limits.activeSessions.acquire(tenantId, member, limits.maxConcurrentSessions, limits.activeWindowMs),
      );
      if (active !== undefined && !active.allowed) {
        throw limitExceeded(CONCURRENT_SESSIONS_MESSAGE, active.retryAfterMs);
      }

      return {
        async settle(result) {
          await guarded(log, 'session limiters', async () => {
            if (result.created) {
              await limits.messageRate.consume(
                `session:${result.sessionId}`,
                limits.messagesPerMinute,
                RATE_WINDOW_MS,
              );
            }
            if (result.ended !== null) await limits.activeSessions.release(tenantId, member);
            if (result.ended === null && member !== result.sessionId) {
              await limits.activeSessions.rename(tenantId, member, result.sessionId, limits.activeWindowMs);
            }
          });
        },
        async fail() {
          if (sessionId === undefined) {
            await guarded(log, 'concurrent sessions limiter', () =>
              limits.activeSessions.release(tenantId, member),
            );
          }
        },
      };
    },

    /** An ended session no longer counts as active. */
    async released(log: FastifyBaseLogger, tenantId: string, sessionId: string): Promise<void> {
      await guarded(log, 'concurrent sessions limiter', () =>
        limits.activeSessions.release(tenantId, sessionId),
      );
    },
  };
}

export type SessionGate = ReturnType<typeof createSessionGate>;
