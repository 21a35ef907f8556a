import { sessionStream } from '@parley/events';
import { type EventStore, type RecordedEvent, WrongExpectedVersionError } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import {
  type LifecycleCandidate,
  listEndedSessionsDue,
  listOpenSessionsDue,
  summarizeSession,
} from '@parley/projection-session-summaries';
import { callActivity } from './callActivity.js';
import { type LifecycleThresholds, lifecycleTransitions, transitionEvents } from './lifecycleTransitions.js';

export interface LifecycleSweepDeps {
  pool: Pool;
  store: EventStore;
  logger: Logger;
  thresholds: LifecycleThresholds;
  now?: () => Date;
  /** Candidates read per page of the summaries. */
  batchSize?: number;
  /** Stops the sweep between two sessions (a worker stopping): what is left is the next sweep's. */
  signal?: AbortSignal;
}

export interface LifecycleSweepResult {
  idled: number;
  abandoned: number;
  archived: number;
  /** Sessions whose stream moved between the read and the append (activity, another sweep): left for the next sweep. */
  conflicts: number;
}

/**
 * One lifecycle sweep (docs/sessions.md): every open session past the idle or abandon threshold and
 * every ended session past the archive period, found in the session-summaries view and decided from
 * its own stream. The append expects the revision that was read, so activity or another sweep in
 * between makes it fail (counted as a conflict, nothing appended), and the event ids are derived
 * from the facts, so a repeated append is a no-op: concurrent or repeated sweeps never record a
 * transition twice. The view may lag the log; that costs a stream read, never a wrong transition.
 */
export async function runLifecycleSweep(deps: LifecycleSweepDeps): Promise<LifecycleSweepResult> {
  const now = (deps.now ?? (() => new Date()))();
  const limit = deps.batchSize ?? 500;
  const { idleAfterMs, abandonAfterMs, archiveAfterMs } = deps.thresholds;
  const result: LifecycleSweepResult = { idled: 0, abandoned: 0, archived: 0, conflicts: 0 };

  const drain = async (page: (after?: LifecycleCandidate) => Promise<LifecycleCandidate[]>) => {
    let after: LifecycleCandidate | undefined;
    for (;;) {
      if (deps.signal?.aborted) return;
      const candidates = await page(after);
      for (const candidate of candidates) {
        if (deps.signal?.aborted) return;
        await settle(deps, candidate, now, result);
      }
      if (candidates.length < limit) return;
      after = candidates.at(-1);
    }
  };
  await drain((after) =>
    listOpenSessionsDue(deps.pool, {
      idleBefore: new Date(now.getTime() - idleAfterMs),
      abandonBefore: new Date(now.getTime() - abandonAfterMs),
      limit,
      ...(after ? { after } : {}),
    }),
  );
  await drain((after) =>
    listEndedSessionsDue(deps.pool, {
      archiveBefore: new Date(now.getTime() - archiveAfterMs),
      limit,
      ...(after ? { after } : {}),
    }),
  );
  if (result.idled + result.abandoned + result.archived + result.conflicts > 0) {
    deps.logger.info(result, 'session lifecycle sweep');
  }
  return result;
}

async function settle(
  deps: LifecycleSweepDeps,
  candidate: LifecycleCandidate,
  now: Date,
  result: LifecycleSweepResult,
): Promise<void> {
  const stream = sessionStream(candidate.sessionId);
  const events: RecordedEvent[] = [];
  for await (const event of deps.store.readStream(stream)) events.push(event);
  const last = events.at(-1);
  const row = summarizeSession(events);
  if (!last || !row || row.project_id !== candidate.projectId) return;
  const transitions = lifecycleTransitions(row, now, deps.thresholds, callActivity(events));
  if (transitions.length === 0) return;
  const tenantId = events.find((e) => typeof e.metadata.tenantId === 'string')?.metadata.tenantId;
  try {
    await deps.store.append(
      stream,
      transitionEvents(transitions, typeof tenantId === 'string' ? { tenantId } : {}),
      { expectedRevision: last.revision },
    );
  } catch (err) {
    if (!(err instanceof WrongExpectedVersionError)) throw err;
    result.conflicts++;
    return;
  }
  for (const t of transitions) {
    if (t.type === 'SessionIdled') result.idled++;
    else if (t.type === 'SessionEnded') result.abandoned++;
    else result.archived++;
  }
}
