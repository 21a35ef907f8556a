import { randomUUID } from 'node:crypto';
import { type EventDataInput, toAppend, type VoiceCallStatus } from '@parley/events';
import { recordedFrom } from '@parley/events/testing';
import type { EventToAppend, RecordedEvent } from '@parley/eventstore';
import { type SummaryRow, summarizeSession } from '@parley/projection-session-summaries';
import { describe, expect, it } from 'vitest';
import { callActivity, LIVE_CALL_MAX_MS } from './callActivity.js';
import { type LifecycleThresholds, lifecycleTransitions } from './lifecycleTransitions.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const thresholds: LifecycleThresholds = {
  idleAfterMs: 5 * MIN,
  abandonAfterMs: 30 * MIN,
  archiveAfterMs: 30 * 1440 * MIN,
};
const T0 = Date.parse('2026-11-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const scope = { projectId: 'p1', sessionId: 's1' };

const started = (at: number) =>
  toAppend(
    'SessionStarted',
    {
      ...scope,
      agentName: 'voice',
      channel: 'voice_pipeline',
      environment: 'production',
      traceDimensions: {},
      startedAt: iso(at),
    },
    {},
    randomUUID(),
  );
const call = (
  status: VoiceCallStatus,
  at: number,
  extra: Partial<EventDataInput<'VoiceCallStatusChanged'>> = {},
) =>
  toAppend(
    'VoiceCallStatusChanged',
    { ...scope, callId: 'CA1', accountId: 'AC1', status, reportedAt: iso(at), ...extra },
    {},
    randomUUID(),
  );

let position = 0;
const recorded = (events: readonly EventToAppend[]): RecordedEvent[] =>
  events.map((e) => {
    position++;
    return recordedFrom(e, { position: { commit: BigInt(position), prepare: BigInt(position) } });
  });
const transitionsAt = (events: readonly EventToAppend[], now: number) => {
  const log = recorded(events);
  const row = summarizeSession(log) as SummaryRow;
  return lifecycleTransitions(row, new Date(now), thresholds, callActivity(log));
};

describe('a live call is activity for the lifecycle sweep', () => {
  const live = [started(T0), call('ringing', T0), call('in-progress', T0 + 10_000)];

  it('neither idles nor abandons a session while its call is in progress, however quiet', () => {
    expect(callActivity(recorded(live))).toEqual({ live: true, lastChangeAt: T0 + 10_000 });
    for (const quiet of [6 * MIN, 31 * MIN, 3 * HOUR]) expect(transitionsAt(live, T0 + quiet)).toEqual([]);
  });

  it('runs the thresholds from the end of the call', () => {
    const over = T0 + 2 * HOUR;
    const done = [...live, call('completed', over, { durationSeconds: 7190 })];
    expect(transitionsAt(done, over + 5 * MIN - 1)).toEqual([]);
    expect(transitionsAt(done, over + 5 * MIN).map((t) => t.type)).toEqual(['SessionIdled']);
    const [, abandoned] = transitionsAt(done, over + 30 * MIN);
    expect(abandoned).toMatchObject({
      type: 'SessionEnded',
      data: { status: 'abandoned', endedAt: iso(over + 30 * MIN) },
    });
  });

  it('takes the provider order over the log order (a late in-progress after completed)', () => {
    const reordered = [
      started(T0),
      call('completed', T0 + MIN, { sequenceNumber: 3 }),
      call('in-progress', T0 + 20_000, { sequenceNumber: 2 }),
    ];
    expect(callActivity(recorded(reordered)).live).toBe(false);
  });

  it('stops counting a call whose final status never came after the longest call a provider allows', () => {
    const lost = T0 + 10_000 + LIVE_CALL_MAX_MS;
    expect(transitionsAt(live, lost + 5 * MIN - 1)).toEqual([]);
    expect(transitionsAt(live, lost + 30 * MIN).map((t) => t.type)).toEqual(['SessionIdled', 'SessionEnded']);
  });

  it('changes nothing for a session without calls', () => {
    expect(callActivity(recorded([started(T0)]))).toEqual({ live: false, lastChangeAt: null });
    expect(transitionsAt([started(T0)], T0 + 30 * MIN).map((t) => t.type)).toEqual([
      'SessionIdled',
      'SessionEnded',
    ]);
  });
});
