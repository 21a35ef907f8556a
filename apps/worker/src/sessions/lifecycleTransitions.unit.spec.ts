import { randomUUID } from 'node:crypto';
import { type EventDataInput, type EventType, toAppend } from '@parley/events';
import { recordedFrom } from '@parley/events/testing';
import type { EventToAppend, RecordedEvent } from '@parley/eventstore';
import { type SummaryRow, summarizeSession } from '@parley/projection-session-summaries';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LifecycleThresholds, lifecycleTransitions, transitionEvents } from './lifecycleTransitions.js';

const MIN = 60_000;
const DAY = 86_400_000;
const thresholds: LifecycleThresholds = {
  idleAfterMs: 5 * MIN,
  abandonAfterMs: 30 * MIN,
  archiveAfterMs: 30 * DAY,
};
const T0 = Date.parse('2026-11-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const scope = { projectId: 'p1', sessionId: 's1' };

const make = <T extends EventType>(type: T, data: Omit<EventDataInput<T>, 'projectId' | 'sessionId'>) =>
  toAppend(type, { ...scope, ...data } as never, {}, randomUUID());
const started = (at: number) =>
  make('SessionStarted', {
    agentName: 'support',
    channel: 'api',
    environment: 'production',
    traceDimensions: {},
    startedAt: iso(at),
  });
const message = (at: number) =>
  make('MessageReceived', { messageId: randomUUID(), text: 'hi', receivedAt: iso(at) });
const ended = (at: number) => make('SessionEnded', { status: 'completed', endedAt: iso(at) });

let position = 0;
const recorded = (events: readonly EventToAppend[]): RecordedEvent[] =>
  events.map((e) => {
    position++;
    return recordedFrom(e, { position: { commit: BigInt(position), prepare: BigInt(position) } });
  });
const rowOf = (events: readonly EventToAppend[]): SummaryRow => {
  const row = summarizeSession(recorded(events));
  if (!row) throw new Error('no session');
  return row;
};
const typesAt = (events: readonly EventToAppend[], now: number) =>
  lifecycleTransitions(rowOf(events), new Date(now), thresholds).map((t) => t.type);

describe('lifecycleTransitions', () => {
  const open = [started(T0), message(T0 + MIN)];
  const last = T0 + MIN;

  it('leaves a session alone until its idle threshold has passed, then idles it at that time', () => {
    expect(typesAt(open, last + 5 * MIN - 1)).toEqual([]);
    const [idled] = lifecycleTransitions(rowOf(open), new Date(last + 5 * MIN), thresholds);
    expect(idled).toEqual({
      type: 'SessionIdled',
      data: { ...scope, lastActivityAt: iso(last), idledAt: iso(last + 5 * MIN) },
      key: `s1:idled:${iso(last)}`,
    });
  });

  it('abandons an idle session at lastActivity + the abandon threshold, with containment abandoned', () => {
    const idle = [...open, make('SessionIdled', { lastActivityAt: iso(last), idledAt: iso(last + 5 * MIN) })];
    expect(rowOf(idle).status).toBe('idle');
    expect(typesAt(idle, last + 30 * MIN - 1)).toEqual([]);
    const [end] = lifecycleTransitions(rowOf(idle), new Date(last + 30 * MIN), thresholds);
    expect(end?.data).toEqual({
      ...scope,
      status: 'abandoned',
      containmentType: 'abandoned',
      reason: 'inactivity_timeout',
      endedAt: iso(last + 30 * MIN),
    });
  });

  it('catches up on every missed transition at once, each at the time it was due', () => {
    expect(typesAt(open, last + 31 * MIN)).toEqual(['SessionIdled', 'SessionEnded']);
    const late = lifecycleTransitions(rowOf(open), new Date(last + 30 * MIN + 30 * DAY), thresholds);
    expect(late.map((t) => t.type)).toEqual(['SessionIdled', 'SessionEnded', 'SessionArchived']);
    expect(late[2]?.data).toMatchObject({
      endedAt: iso(last + 30 * MIN),
      archivedAt: iso(last + 30 * MIN + 30 * DAY),
    });
  });

  it('archives an ended session after the archive period, and nothing after that', () => {
    const done = [...open, ended(T0 + 2 * MIN)];
    expect(typesAt(done, T0 + 2 * MIN + 30 * DAY - 1)).toEqual([]);
    expect(typesAt(done, T0 + 2 * MIN + 30 * DAY)).toEqual(['SessionArchived']);
    const archived = [...done, make('SessionArchived', { endedAt: iso(T0 + 2 * MIN), archivedAt: iso(T0) })];
    expect(typesAt(archived, T0 + 999 * DAY)).toEqual([]);
  });

  it('does nothing for a session with no start', () => {
    expect(typesAt([message(T0)], T0 + 999 * DAY)).toEqual([]);
  });

  it('derives the same event ids from the same facts, different ones after new activity', () => {
    const ids = (events: readonly EventToAppend[], now: number) =>
      transitionEvents(lifecycleTransitions(rowOf(events), new Date(now), thresholds), {}).map(
        (e) => e.eventId,
      );
    expect(ids(open, last + 6 * MIN)).toEqual(ids(open, last + 7 * MIN));
    expect(ids(open, last + 40 * MIN)[0]).toEqual(ids(open, last + 6 * MIN)[0]);
    expect(ids([...open, message(last + MIN)], last + 7 * MIN)).not.toEqual(ids(open, last + 7 * MIN));
  });
});

describe('lifecycleTransitions properties', () => {
  const activity = fc.array(fc.integer({ min: 0, max: 90 * DAY }), { maxLength: 6 });
  const sessions = fc.record({
    activity,
    endAfter: fc.option(fc.integer({ min: 0, max: 90 * DAY }), { nil: undefined }),
    now: fc.integer({ min: 0, max: 200 * DAY }),
    later: fc.integer({ min: 0, max: 200 * DAY }),
  });
  const build = (s: { activity: number[]; endAfter: number | undefined }) => [
    started(T0),
    ...s.activity.map((offset) => message(T0 + offset)),
    ...(s.endAfter === undefined ? [] : [ended(T0 + s.endAfter)]),
  ];

  it('applied, they leave nothing more to do at the same time (a second sweep appends nothing)', () => {
    fc.assert(
      fc.property(sessions, (s) => {
        const events = build(s);
        const now = new Date(T0 + s.now);
        const first = lifecycleTransitions(rowOf(events), now, thresholds);
        const applied = [...events, ...transitionEvents(first, {})];
        expect(lifecycleTransitions(rowOf(applied), now, thresholds)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('give the state the thresholds say, and one sweep late equals two sweeps on time', () => {
    fc.assert(
      fc.property(sessions, (s) => {
        const events = build(s);
        const now = T0 + s.now;
        const row = rowOf(events);
        const applied = rowOf([
          ...events,
          ...transitionEvents(lifecycleTransitions(row, new Date(now), thresholds), {}),
        ]);
        const lastActivity = Math.max(T0, ...s.activity.map((o) => T0 + o));
        const endedAt = s.endAfter === undefined ? lastActivity + thresholds.abandonAfterMs : T0 + s.endAfter;
        const closed = s.endAfter !== undefined || lastActivity + thresholds.abandonAfterMs <= now;
        const expected =
          closed && endedAt + thresholds.archiveAfterMs <= now
            ? 'archived'
            : s.endAfter !== undefined
              ? 'completed'
              : closed
                ? 'abandoned'
                : lastActivity + thresholds.idleAfterMs <= now
                  ? 'idle'
                  : 'active';
        expect(applied.status).toBe(expected);

        // Sweeping at `now` and again at `now + later` ends where one sweep at `now + later` does.
        const twice = [
          ...events,
          ...transitionEvents(lifecycleTransitions(row, new Date(now), thresholds), {}),
        ];
        const second = rowOf([
          ...twice,
          ...transitionEvents(lifecycleTransitions(rowOf(twice), new Date(now + s.later), thresholds), {}),
        ]);
        const once = rowOf([
          ...events,
          ...transitionEvents(lifecycleTransitions(row, new Date(now + s.later), thresholds), {}),
        ]);
        expect({ status: second.status, ended_at: second.ended_at, archived_at: second.archived_at }).toEqual(
          {
            status: once.status,
            ended_at: once.ended_at,
            archived_at: once.archived_at,
          },
        );
      }),
      { numRuns: 300 },
    );
  });
});
