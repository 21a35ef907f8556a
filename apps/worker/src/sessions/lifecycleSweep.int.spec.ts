import { randomUUID } from 'node:crypto';
import { type EventDataInput, type EventType, sessionStream, toAppend, upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  type EventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  START,
} from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { listSessions, sessionSummariesProjection } from '@parley/projection-session-summaries';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runLifecycleSweep } from './lifecycleSweep.js';
import type { LifecycleThresholds } from './lifecycleTransitions.js';

const MIN = 60_000;
const DAY = 86_400_000;
const thresholds: LifecycleThresholds = {
  idleAfterMs: 5 * MIN,
  abandonAfterMs: 30 * MIN,
  archiveAfterMs: 30 * DAY,
};
const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

let db: TestDatabase;
let store: PostgresEventStore;
let runner: ProjectionRunner;

// The sweep looks at every project: a fresh database per test keeps the tests' sessions apart.
beforeEach(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations], { poolMax: 20 });
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  lastAppended = START;
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [sessionSummariesProjection],
    pollIntervalMs: 20,
    idleCheckMs: 100,
  });
  await runner.start();
});
afterEach(async () => {
  await runner.stop();
  await store.close();
  await db.close();
});

/** Appends, remembering the latest position for caughtUp. */
async function append(stream: string, events: EventToAppend[]): Promise<void> {
  const { position } = await store.append(stream, events);
  if (comparePositions(position, lastAppended) > 0) lastAppended = position;
}
let lastAppended: Position = START;

/** Waits until the projection has applied everything appended so far (sweeps' appends included). */
async function caughtUp(): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const head = await store.head();
    // The log's head is what readers can see: first wait until it reaches the last append.
    if (head && comparePositions(head.position, lastAppended) >= 0) {
      const [status] = await projectionStatus(db.pool, store, [sessionSummariesProjection]);
      const live = status?.generations.find((g) => g.generation === status.liveGeneration);
      if (live && comparePositions(live.checkpoint, head.position) >= 0) return;
    }
    if (Date.now() > deadline) throw new Error('projection did not catch up');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A session (of a fresh project unless one is given) and its events' builders. */
function session(projectId = `proj_${randomUUID()}`) {
  const sessionId = `ses_${randomUUID()}`;
  const scope = { projectId, sessionId };
  const add = <T extends EventType>(type: T, data: Omit<EventDataInput<T>, 'projectId' | 'sessionId'>) =>
    append(sessionStream(sessionId), [toAppend(type, { ...scope, ...data } as never, { tenantId: 'ten_1' })]);
  return {
    ...scope,
    start: (at: number) =>
      add('SessionStarted', {
        agentName: 'support',
        channel: 'api',
        environment: 'production',
        traceDimensions: {},
        startedAt: iso(at),
      }),
    message: (at: number) =>
      add('MessageReceived', { messageId: randomUUID(), text: 'hello', receivedAt: iso(at) }),
    end: (at: number) =>
      add('SessionEnded', {
        status: 'completed',
        containmentType: 'contained_resolved',
        endedAt: iso(at),
      }),
    call: (status: 'in-progress' | 'completed', at: number) =>
      add('VoiceCallStatusChanged', { callId: 'CA1', accountId: 'AC1', status, reportedAt: iso(at) }),
  };
}

async function typesOf(sessionId: string): Promise<string[]> {
  const types: string[] = [];
  for await (const event of store.readStream(sessionStream(sessionId))) types.push(event.type);
  return types;
}

/** The store as the sweep sees it, its appends remembered for caughtUp. */
const tracked = (over: EventStore): EventStore => ({
  ...over,
  readStream: (stream, options) => over.readStream(stream, options),
  append: async (stream, events, options) => {
    const result = await over.append(stream, events, options);
    if (comparePositions(result.position, lastAppended) > 0) lastAppended = result.position;
    return result;
  },
});

const sweep = (now = NOW, over: EventStore = store) =>
  runLifecycleSweep({
    pool: db.pool,
    store: tracked(over),
    logger: silentLogger(),
    thresholds,
    now: () => new Date(now),
    batchSize: 2,
  });

async function summary(projectId: string, now = NOW) {
  const page = await listSessions(
    db.pool,
    { projectId, limit: 10, offset: 0 },
    {
      now: new Date(now),
    },
  );
  return page.sessions[0];
}

describe('the session lifecycle sweep', () => {
  it('idles, abandons and archives what is due (paging through candidates), and nothing twice', async () => {
    const projectId = `proj_${randomUUID()}`;
    const fresh = session(projectId);
    await fresh.start(NOW - 10 * MIN);
    await fresh.message(NOW - 4 * MIN);
    const quiet = session(projectId);
    await quiet.start(NOW - 20 * MIN);
    await quiet.message(NOW - 10 * MIN);
    const gone = session(projectId);
    await gone.start(NOW - 2 * DAY);
    const old = session(projectId);
    await old.start(NOW - 40 * DAY);
    await old.end(NOW - 31 * DAY);
    const recent = session(projectId);
    await recent.start(NOW - 2 * DAY);
    await recent.end(NOW - 29 * DAY + DAY);
    await caughtUp();

    expect(await sweep()).toEqual({ idled: 2, abandoned: 1, archived: 1, conflicts: 0 });
    expect(await typesOf(fresh.sessionId)).toEqual(['SessionStarted', 'MessageReceived']);
    expect(await typesOf(quiet.sessionId)).toEqual(['SessionStarted', 'MessageReceived', 'SessionIdled']);
    expect(await typesOf(gone.sessionId)).toEqual(['SessionStarted', 'SessionIdled', 'SessionEnded']);
    expect(await typesOf(old.sessionId)).toEqual(['SessionStarted', 'SessionEnded', 'SessionArchived']);
    expect(await typesOf(recent.sessionId)).toEqual(['SessionStarted', 'SessionEnded']);

    // Before the projection has applied them and after: a second sweep appends nothing.
    expect(await sweep()).toEqual({ idled: 0, abandoned: 0, archived: 0, conflicts: 0 });
    await caughtUp();
    expect(await sweep()).toEqual({ idled: 0, abandoned: 0, archived: 0, conflicts: 0 });

    const { rows } = await db.pool.query<{ id: string; status: string; containment_type: string }>(
      'select id, status, containment_type from session_summaries where project_id = $1',
      [projectId],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.containment_type]]))).toEqual({
      [fresh.sessionId]: ['active', 'contained'],
      [quiet.sessionId]: ['idle', 'contained'],
      [gone.sessionId]: ['abandoned', 'abandoned'],
      [old.sessionId]: ['archived', 'contained_resolved'],
      [recent.sessionId]: ['completed', 'contained_resolved'],
    });
  });

  it('never abandons a session whose call is in progress: a live call is activity', async () => {
    const s = session();
    await s.start(NOW - 3 * 60 * MIN);
    await s.call('in-progress', NOW - 3 * 60 * MIN);
    await s.message(NOW - 2 * 60 * MIN);
    await caughtUp();
    // Two hours without a message, the call still going: nothing is due, so its recordings stay
    // call_in_progress (retryable) instead of media_not_available.
    expect(await sweep()).toEqual({ idled: 0, abandoned: 0, archived: 0, conflicts: 0 });
    expect(await typesOf(s.sessionId)).not.toContain('SessionEnded');

    // The call ends (an event the summaries do not read: nothing to wait for): the thresholds run
    // from its end.
    await s.call('completed', NOW);
    expect(await sweep(NOW + 29 * MIN)).toEqual({ idled: 1, abandoned: 0, archived: 0, conflicts: 0 });
    expect(await sweep(NOW + 30 * MIN)).toEqual({ idled: 0, abandoned: 1, archived: 0, conflicts: 0 });
  });

  it('stops between two sessions when it is told to (a worker stopping), leaving the rest for later', async () => {
    const projectId = `proj_${randomUUID()}`;
    for (let i = 0; i < 4; i++) await session(projectId).start(NOW - 10 * MIN);
    await caughtUp();
    const stop = new AbortController();
    const stopsAfterOneRead: EventStore = {
      ...store,
      readStream: (stream, options) => {
        stop.abort();
        return store.readStream(stream, options);
      },
    };
    const first = await runLifecycleSweep({
      pool: db.pool,
      store: tracked(stopsAfterOneRead),
      logger: silentLogger(),
      thresholds,
      now: () => new Date(NOW),
      batchSize: 2,
      signal: stop.signal,
    });
    expect(first).toEqual({ idled: 1, abandoned: 0, archived: 0, conflicts: 0 });
    expect(await sweep()).toEqual({ idled: 3, abandoned: 0, archived: 0, conflicts: 0 });
  });

  it('gives the list durations right in every state: an idle session’s run until the time of reading', async () => {
    const s = session();
    await s.start(NOW - 20 * MIN);
    await s.message(NOW - 10 * MIN);
    await caughtUp();
    expect(await summary(s.projectId)).toMatchObject({
      status: 'active',
      durationMs: 10 * MIN,
      idleDurationMs: 0,
    });
    await sweep();
    await caughtUp();
    expect(await summary(s.projectId)).toMatchObject({
      status: 'idle',
      containmentType: 'contained',
      endedAt: null,
      durationMs: 20 * MIN,
      idleDurationMs: 10 * MIN,
    });
    const idle = await listSessions(db.pool, {
      projectId: s.projectId,
      status: 'idle',
      limit: 10,
      offset: 0,
    });
    expect(idle.sessions.map((x) => x.id)).toEqual([s.sessionId]);
    expect(await summary(s.projectId, NOW + 5 * MIN)).toMatchObject({
      durationMs: 25 * MIN,
      idleDurationMs: 15 * MIN,
    });
    await sweep(NOW + 25 * MIN);
    await caughtUp();
    expect(await summary(s.projectId, NOW + 99 * MIN)).toMatchObject({
      status: 'abandoned',
      containmentType: 'abandoned',
      endedAt: iso(NOW + 20 * MIN),
      durationMs: 40 * MIN,
      idleDurationMs: 30 * MIN,
    });
  });

  it('an idle session is active again on activity, and idles again later from its new last activity', async () => {
    const s = session();
    await s.start(NOW - 20 * MIN);
    await caughtUp();
    await sweep();
    await s.message(NOW + MIN);
    await caughtUp();
    expect(await summary(s.projectId, NOW + MIN)).toMatchObject({ status: 'active', idleDurationMs: 0 });
    expect(await sweep(NOW + 3 * MIN)).toMatchObject({ idled: 0, abandoned: 0 });
    expect(await sweep(NOW + 6 * MIN)).toMatchObject({ idled: 1, abandoned: 0 });
    await caughtUp();
    expect(await summary(s.projectId, NOW + 6 * MIN)).toMatchObject({
      status: 'idle',
      idleDurationMs: 5 * MIN,
    });
    expect(await typesOf(s.sessionId)).toEqual([
      'SessionStarted',
      'SessionIdled',
      'MessageReceived',
      'SessionIdled',
    ]);
  });

  it('concurrent sweeps record each transition once', async () => {
    const projectId = `proj_${randomUUID()}`;
    const sessions = Array.from({ length: 12 }, () => session(projectId));
    for (const [i, s] of sessions.entries()) {
      await s.start(NOW - (i % 2 === 0 ? 10 * MIN : 2 * DAY));
    }
    await caughtUp();
    const results = await Promise.all(Array.from({ length: 6 }, () => sweep()));
    // Each sweep counts what it appended or found appended (a retry of the same ids is a no-op).
    for (const r of results) expect(r.idled).toBeLessThanOrEqual(12);
    for (const [i, s] of sessions.entries()) {
      expect(await typesOf(s.sessionId)).toEqual(
        i % 2 === 0 ? ['SessionStarted', 'SessionIdled'] : ['SessionStarted', 'SessionIdled', 'SessionEnded'],
      );
    }
  });

  it('activity between the read and the append wins: nothing is appended, the session stays active', async () => {
    const s = session();
    await s.start(NOW - 10 * MIN);
    await caughtUp();
    let raced = false;
    const racing: EventStore = {
      ...store,
      readStream: (stream, options) => store.readStream(stream, options),
      append: async (stream, events, options) => {
        if (!raced) {
          raced = true;
          await s.message(NOW);
        }
        return store.append(stream, events, options);
      },
    };
    expect(await sweep(NOW, racing)).toEqual({ idled: 0, abandoned: 0, archived: 0, conflicts: 1 });
    expect(await typesOf(s.sessionId)).toEqual(['SessionStarted', 'MessageReceived']);
    await caughtUp();
    expect(await summary(s.projectId)).toMatchObject({ status: 'active' });
  });
});
