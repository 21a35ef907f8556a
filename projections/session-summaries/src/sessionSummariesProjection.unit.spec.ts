import { type EventType, toAppend } from '@parley/events';
import { eventDataArbitraries, recordedFrom } from '@parley/events/testing';
import type { RecordedEvent } from '@parley/eventstore';
import { emptyState, type MemoryState, memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dimensionMatchKey, dimensionNameKey } from './dimensionRow.js';
import { sessionSummariesProjection } from './sessionSummariesProjection.js';
import { inLogOrder, reordered, sessionEvents } from './spec/sessionEvents.js';

const callStatus = (
  callId: string,
  status: 'ringing' | 'completed' | 'failed',
  at: string,
  durationSeconds?: number,
) =>
  toAppend('VoiceCallStatusChanged', {
    callId,
    projectId: 'p1',
    sessionId: 's1',
    accountId: 'AC1',
    status,
    occurredAt: at,
    reportedAt: at,
    ...(durationSeconds === undefined ? {} : { durationSeconds }),
  });
const fold = (events: readonly RecordedEvent[], state?: MemoryState) =>
  projectInMemory(sessionSummariesProjection, events, state);
const summaries = (state: MemoryState) => memoryRows(state, 'session_summaries');
const dimensions = (state: MemoryState) => memoryRows(state, 'session_dimensions');

describe('session-summaries handlers', () => {
  it('folds a session into every field', () => {
    const s = sessionEvents('p1', 's1');
    const start = s.started('2025-03-01T10:00:00.000Z', {
      channel: 'voice_pipeline',
      environment: 'dev',
      channelUserId: 'u-42',
      callerNumberKey: '+14155550100',
      traceDimensions: { plan: 'gold', region: 'eu' },
      isTest: false,
    });
    const end = s.ended('2025-03-01T10:05:00.000Z', { status: 'escalated', containmentType: 'escalated' });
    const events = inLogOrder([
      start,
      s.message('2025-03-01T10:00:05.000Z'),
      s.reply('2025-03-01T10:00:07.000Z'),
      s.message('2025-03-01T10:01:00.000Z'),
      s.trace('llm_call', '2025-03-01T10:00:06.000Z', 900),
      s.trace('decision', '2025-03-01T10:00:06.500Z'),
      s.trace('tool_call', '2025-03-01T10:01:01.000Z', 2_000),
      s.trace('error', '2025-03-01T10:01:02.000Z'),
      s.trace('handoff', '2025-03-01T10:01:03.000Z'),
      s.llmCall('2025-03-01T10:00:06.000Z', 0.1, {
        inputTokens: 100,
        cachedTokens: 20,
        completionTokens: 30,
      }),
      s.llmCall(
        '2025-03-01T10:01:30.000Z',
        0.2,
        { inputTokens: 50, completionTokens: 10, reasoningTokens: 5 },
        4_000,
      ),
      s.llmCall('2025-03-01T10:04:00.000Z', 9, { inputTokens: 1, completionTokens: 1 }, 1, false), // no session
      // A call's statuses, out of order: the one that happened last wins; not activity.
      callStatus('CA1', 'completed', '2025-03-01T10:04:30.000Z', 42),
      callStatus('CA1', 'ringing', '2025-03-01T10:03:40.000Z'),
      callStatus('CA2', 'failed', '2025-03-01T10:04:50.000Z'),
      end,
    ]);
    const state = fold(events);
    expect(summaries(state)).toEqual([
      {
        project_id: 'p1',
        id: 's1',
        started_event_id: start.eventId,
        channel: 'voice_pipeline',
        environment: 'dev',
        channel_user_id: 'u-42',
        caller_number_key: '+14155550100',
        trace_dimensions: { plan: 'gold', region: 'eu' },
        is_test: false,
        created_at: new Date('2025-03-01T10:00:00.000Z'),
        last_activity_at: new Date('2025-03-01T10:01:34.000Z'), // the second LLM call's end
        ended_event_id: end.eventId,
        ended_at: new Date('2025-03-01T10:05:00.000Z'),
        recorded_containment_type: 'escalated',
        end_status: 'escalated',
        idle_activity_at: null,
        idled_at: null,
        archived_at: null,
        status: 'escalated',
        containment_type: 'escalated',
        duration_ms: 300_000,
        idle_duration_ms: 206_000,
        user_messages: 2,
        agent_messages: 1,
        trace_llm_call: 1,
        trace_decision: 1,
        trace_tool_call: 1,
        trace_error: 1,
        trace_total: 5,
        llm_calls: 2,
        input_tokens: 150,
        cached_tokens: 20,
        completion_tokens: 40,
        reasoning_tokens: 5,
        output_tokens: 45,
        total_tokens: 195,
        estimated_cost: '0.3', // exact: 0.1 + 0.2 in doubles is 0.30000000000000004
        voice_calls: {
          CA1: {
            status: 'completed',
            at: '2025-03-01T10:04:30.000Z',
            eventId: expect.any(String),
            durationSeconds: 42,
          },
          CA2: {
            status: 'failed',
            at: '2025-03-01T10:04:50.000Z',
            eventId: expect.any(String),
            durationSeconds: null,
          },
        },
        summary_written_at: new Date('2025-01-01T00:00:00Z'),
      },
    ]);
    expect(dimensions(state).map((d) => d.match_key)).toEqual(
      expect.arrayContaining([dimensionMatchKey('plan', 'gold'), dimensionMatchKey('region', 'eu')]),
    );
    expect(dimensions(state).every((d) => d.started_event_id === start.eventId)).toBe(true);
  });

  it('stores VoiceXML sessions recorded as `vxml` under the spec’s `voice_vxml`', () => {
    const s = sessionEvents('p1', 's-vxml');
    const state = fold(inLogOrder([s.started('2025-03-01T10:00:00Z', { channel: 'vxml' })]));
    expect(summaries(state)[0]).toMatchObject({ channel: 'voice_vxml' });
  });

  it('is active and contained until it ends; an end without a classification derives one', () => {
    const s = sessionEvents('p1', 's2');
    const active = fold(inLogOrder([s.started('2025-03-01T10:00:00Z'), s.message('2025-03-01T10:00:30Z')]));
    expect(summaries(active)[0]).toMatchObject({
      status: 'active',
      containment_type: 'contained',
      ended_at: null,
      duration_ms: 30_000,
      idle_duration_ms: 0,
    });
    for (const [status, containment] of [
      ['failed', 'contained_unresolved'],
      ['completed', 'contained_unresolved'],
      ['abandoned', 'abandoned'],
      ['escalated', 'escalated'],
    ] as const) {
      const ended = fold(reordered(inLogOrder([s.ended('2025-03-01T10:01:00Z', { status })]), 10), active);
      expect(summaries(ended)[0]).toMatchObject({
        status,
        containment_type: containment,
        idle_duration_ms: 30_000,
      });
    }
  });

  it('goes idle on SessionIdled, active again on later activity, idle again on a later SessionIdled', () => {
    const s = sessionEvents('p1', 's5');
    const opened = [s.started('2025-03-01T10:00:00Z'), s.message('2025-03-01T10:00:30Z')];
    const idled = fold(inLogOrder([...opened, s.idled('2025-03-01T10:00:30Z', '2025-03-01T10:05:30Z')]));
    expect(summaries(idled)[0]).toMatchObject({
      status: 'idle',
      containment_type: 'contained',
      ended_at: null,
      last_activity_at: new Date('2025-03-01T10:00:30Z'),
      duration_ms: 330_000,
      idle_duration_ms: 300_000,
    });
    // Activity after the activity the idle event saw (even one recorded before it): active again.
    for (const activity of [
      s.reply('2025-03-01T10:07:00Z'),
      s.trace('tool_call', '2025-03-01T10:00:20Z', 20_000),
      s.llmCall('2025-03-01T10:00:29Z', 0.01, { inputTokens: 1, completionTokens: 1 }, 2_000),
    ]) {
      expect(summaries(fold(reordered(inLogOrder([activity]), 10), idled))[0]).toMatchObject({
        status: 'active',
        containment_type: 'contained',
        idle_duration_ms: 0,
      });
    }
    // Activity the idle event had seen (not later than its lastActivityAt): still idle.
    const seen = fold(reordered(inLogOrder([s.reply('2025-03-01T10:00:10Z')]), 10), idled);
    expect(summaries(seen)[0]?.status).toBe('idle');
    const resumed = fold(reordered(inLogOrder([s.message('2025-03-01T10:07:00Z')]), 10), idled);
    const again = fold(
      reordered(inLogOrder([s.idled('2025-03-01T10:07:00Z', '2025-03-01T10:12:00Z')]), 20),
      resumed,
    );
    expect(summaries(again)[0]).toMatchObject({
      status: 'idle',
      duration_ms: 720_000,
      idle_duration_ms: 300_000,
    });
  });

  it('is abandoned by an abandoning end, whether or not it was idle first; durations count the idle tail', () => {
    const s = sessionEvents('p1', 's6');
    const abandon = s.ended('2025-03-01T10:30:30Z', {
      status: 'abandoned',
      containmentType: 'abandoned',
      reason: 'inactivity_timeout',
    });
    const opened = [s.started('2025-03-01T10:00:00Z'), s.message('2025-03-01T10:00:30Z')];
    for (const events of [
      [...opened, abandon],
      [...opened, s.idled('2025-03-01T10:00:30Z', '2025-03-01T10:05:30Z'), abandon],
    ]) {
      expect(summaries(fold(inLogOrder(events)))[0]).toMatchObject({
        status: 'abandoned',
        containment_type: 'abandoned',
        ended_at: new Date('2025-03-01T10:30:30Z'),
        duration_ms: 1_830_000,
        idle_duration_ms: 1_800_000,
      });
    }
  });

  it('is archived once archived, keeping the end’s containment type, end time and durations', () => {
    const s = sessionEvents('p1', 's7');
    const events = inLogOrder([
      s.started('2025-03-01T10:00:00Z'),
      s.message('2025-03-01T10:00:30Z'),
      s.ended('2025-03-01T10:01:00Z', { status: 'escalated', containmentType: 'escalated' }),
      s.archived('2025-03-01T10:01:00Z', '2025-03-31T10:01:00Z'),
    ]);
    for (const order of [events, [...events].reverse()]) {
      expect(summaries(fold(reordered(order)))[0]).toMatchObject({
        status: 'archived',
        end_status: 'escalated',
        containment_type: 'escalated',
        ended_at: new Date('2025-03-01T10:01:00Z'),
        archived_at: new Date('2025-03-31T10:01:00Z'),
        duration_ms: 60_000,
        idle_duration_ms: 30_000,
      });
    }
  });

  it('the earliest start and the latest end win, whatever the order', () => {
    const s = sessionEvents('p1', 's3');
    const events = inLogOrder([
      s.started('2025-03-01T10:00:01Z', { channel: 'api', traceDimensions: { a: '1', b: '2' } }),
      s.started('2025-03-01T10:00:00Z', { channel: 'http', traceDimensions: { a: '9' } }),
      s.ended('2025-03-01T10:02:00Z', { status: 'completed', containmentType: 'contained_resolved' }),
      s.ended('2025-03-01T10:01:00Z', { status: 'abandoned' }),
    ]);
    for (const order of [events, [...events].reverse()]) {
      const state = fold(reordered(order));
      expect(summaries(state)[0]).toMatchObject({
        channel: 'http',
        trace_dimensions: { a: '9' },
        status: 'completed',
        containment_type: 'contained_resolved',
      });
      // b came only with the losing start: its row stays, but not for the winning start.
      const winner = summaries(state)[0]?.started_event_id;
      const rows = dimensions(state);
      expect(rows.find((d) => d.name_key === dimensionNameKey('a'))).toMatchObject({
        match_key: dimensionMatchKey('a', '9'),
        started_event_id: winner,
      });
      expect(rows.find((d) => d.name_key === dimensionNameKey('b'))?.started_event_id).not.toBe(winner);
    }
  });

  it('a replayed batch changes nothing; a start or end delivered twice changes nothing', () => {
    const s = sessionEvents('p1', 's4');
    const events = inLogOrder([s.started('2025-03-01T10:00:00Z'), s.message('2025-03-01T10:00:01Z')]);
    const once = fold(events);
    expect(fold(events, once).tables).toEqual(once.tables); // at or before the checkpoint: skipped
    const again = reordered(inLogOrder([s.ended('2025-03-01T10:01:00Z')]), 3);
    const ended = fold(again);
    const twice = fold(reordered(again, 10), fold(again, once));
    expect(summaries(twice)).toEqual(summaries(fold(again, once)));
    expect(summaries(ended)[0]?.status).toBe('completed');
  });

  it('reads only its nine event types', () => {
    expect(sessionSummariesProjection.eventTypes).toEqual([
      'SessionStarted',
      'SessionEnded',
      'SessionIdled',
      'SessionArchived',
      'MessageReceived',
      'AgentReplied',
      'TraceEventRecorded',
      'LlmCallRecorded',
      'VoiceCallStatusChanged',
    ]);
  });
});

// ---- properties -----------------------------------------------------------------------------

const PROJECT = 'p';
const SESSION = 's';
const sessionTypes = [
  'SessionStarted',
  'SessionEnded',
  'SessionIdled',
  'SessionArchived',
  'MessageReceived',
  'AgentReplied',
  'TraceEventRecorded',
  'LlmCallRecorded',
] as const satisfies readonly EventType[];

/** Prices as they come (cents, fractions of cents), whose double sums depend on the order. */
const price = fc.oneof(
  fc.double({ min: 0, max: 1e6, noNaN: true }),
  fc.nat({ max: 1_000_000 }).map((n) => n / 10_000),
);

/** Valid events of one session, any fields, LLM calls weighted up; recordedAt varies too. */
const sessionEvent = fc
  .tuple(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...sessionTypes) },
      { weight: 3, arbitrary: fc.constant('LlmCallRecorded' as const) },
    ),
    fc.date({ min: new Date('2020-01-01Z'), max: new Date('2030-01-01Z'), noInvalidDate: true }),
    price,
  )
  .chain(([type, recordedAt, cost]) =>
    (eventDataArbitraries[type] as fc.Arbitrary<Record<string, unknown>>).map((data) => {
      const scoped = {
        ...data,
        projectId: PROJECT,
        sessionId: SESSION,
        ...(type === 'LlmCallRecorded' ? { cost } : {}),
      };
      return recordedFrom(toAppend(type, scoped as never), { recordedAt });
    }),
  );

const unknownEvent = fc.constantFrom('SessionRenamed', 'KeyRotated', 'AuditRecorded').map((type) =>
  recordedFrom({
    eventId: crypto.randomUUID(),
    type,
    data: { projectId: PROJECT, sessionId: SESSION },
    metadata: {},
  }),
);

/** The events as one permutation, folded in random batches (carrying the state between them). */
function foldInBatches(events: readonly RecordedEvent[], cuts: readonly number[]): MemoryState {
  const positioned = reordered(events);
  let state = emptyState(sessionSummariesProjection);
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (positioned.length + 1)))].sort((a, b) => a - b)) {
    state = fold(positioned.slice(from, cut), state);
    from = cut;
  }
  return fold(positioned.slice(from), state);
}

const tablesOf = (state: MemoryState) => ({ s: summaries(state), d: dimensions(state) });

describe('session-summaries properties', () => {
  it('every permutation of a session’s events, in any batches, folds to the same rows', () => {
    fc.assert(
      fc.property(
        fc
          .array(sessionEvent, { minLength: 1, maxLength: 14 })
          .chain((events) =>
            fc.tuple(
              fc.constant(events),
              fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
              fc.array(fc.nat(), { maxLength: 4 }),
            ),
          ),
        ([events, permuted, cuts]) => {
          const expected = tablesOf(fold(reordered(events)));
          expect(tablesOf(foldInBatches(permuted, cuts))).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('unknown event types change nothing', () => {
    fc.assert(
      fc.property(
        fc.array(sessionEvent, { maxLength: 8 }),
        fc.array(unknownEvent, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (events, unknown, at) => {
          const mixed = [...events];
          mixed.splice(at % (events.length + 1), 0, ...unknown);
          expect(tablesOf(fold(reordered(mixed)))).toEqual(tablesOf(fold(reordered(events))));
        },
      ),
    );
  });

  it('a lifecycle event delivered again (a new position, the same event) changes nothing', () => {
    fc.assert(
      fc.property(fc.array(sessionEvent, { minLength: 1, maxLength: 10 }), fc.nat(), (events, pick) => {
        const lifecycle = events.filter((e) =>
          ['SessionStarted', 'SessionEnded', 'SessionIdled', 'SessionArchived'].includes(e.type),
        );
        fc.pre(lifecycle.length > 0);
        const repeated = lifecycle[pick % lifecycle.length] as RecordedEvent;
        expect(tablesOf(fold(reordered([...events, repeated])))).toEqual(tablesOf(fold(reordered(events))));
      }),
    );
  });
});
