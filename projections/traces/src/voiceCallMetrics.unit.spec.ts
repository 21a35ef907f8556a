import { toAppend } from '@parley/events';
import { recordedFrom } from '@parley/events/testing';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import { describe, expect, it } from 'vitest';
import { sessionMetrics } from './sessionMetrics.js';
import { exampleSession } from './testing/sessionTrace.js';
import { traceAnalysis } from './traceAnalysis.js';
import { type TraceEventRow, tracesProjection } from './tracesProjection.js';

/** The example session plus a call's lifecycle, projected in memory as the traces read model holds it. */
function withCall() {
  const { events } = exampleSession('p', 's');
  const status = (status: 'ringing' | 'in-progress' | 'completed' | 'busy', second: number, more = {}) =>
    toAppend('VoiceCallStatusChanged', {
      callId: status === 'busy' ? 'CA2' : 'CA1',
      projectId: 'p',
      sessionId: 's',
      accountId: 'AC1',
      status,
      occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
      reportedAt: new Date(Date.UTC(2026, 0, 1, 0, 1, 0)).toISOString(),
      ...more,
    });
  const calls = [
    status('ringing', 1),
    status('in-progress', 3),
    status('completed', 40, { durationSeconds: 37 }),
    status('busy', 50, { errorCode: '486' }),
    // A call without a session never reaches a session's trace.
    toAppend('VoiceCallStatusChanged', {
      callId: 'CA3',
      projectId: 'p',
      accountId: 'AC1',
      status: 'ringing',
      reportedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)).toISOString(),
    }),
  ];
  const state = projectInMemory(
    tracesProjection,
    [...events, ...calls].map((e, i) =>
      recordedFrom(e, { revision: BigInt(i), position: { commit: BigInt(i + 1), prepare: 0n } }),
    ),
  );
  return (memoryRows(state, 'trace_events') as TraceEventRow[]).sort(
    (a, b) => a.started_at.getTime() - b.started_at.getTime() || a.seq - b.seq,
  );
}

describe('voice calls in the traces read model', () => {
  it('makes each status of a session’s call a state_change, with the duration where reported', () => {
    const rows = withCall().filter((r) => r.name === 'voice_call_status');
    expect(rows.map((r) => [r.attributes, r.status, r.duration_ms])).toEqual([
      [{ callId: 'CA1', to: 'ringing', accountId: 'AC1' }, 'ok', null],
      [{ callId: 'CA1', to: 'in-progress', accountId: 'AC1' }, 'ok', null],
      [{ callId: 'CA1', to: 'completed', accountId: 'AC1', durationSeconds: 37 }, 'ok', 37_000],
      [{ callId: 'CA2', to: 'busy', accountId: 'AC1', errorCode: '486' }, 'error', null],
    ]);
    expect(rows.every((r) => r.event_type === 'state_change' && r.parent_span_id === null)).toBe(true);
    expect(new Set(rows.slice(0, 3).map((r) => r.trace_id)).size).toBe(1);
    expect(rows[3]?.trace_id).not.toBe(rows[0]?.trace_id);
  });

  it('summarises the calls in the metrics; their events are not turns nor slow spans', () => {
    const rows = withCall();
    const plain = sessionMetrics(
      rows.filter((r) => r.name !== 'voice_call_status'),
      [],
    );
    const m = sessionMetrics(rows, []);
    expect(m.turnCount).toBe(plain.turnCount);
    expect(m.totalLatencyMs).toBe(plain.totalLatencyMs);
    expect(m.eventCount).toBe(plain.eventCount + 4);
    expect(m.errorCount).toBe(plain.errorCount + 1);
    expect(m.voiceCalls).toEqual([
      {
        callId: 'CA1',
        status: 'completed',
        statuses: [
          { status: 'ringing', at: '2026-01-01T00:00:01.000Z' },
          { status: 'in-progress', at: '2026-01-01T00:00:03.000Z' },
          { status: 'completed', at: '2026-01-01T00:00:40.000Z' },
        ],
        durationMs: 37_000,
        firstResponseTimeMs: null,
        meanResponseTimeMs: null,
        turnCount: null,
        sttConfidence: null,
        bargeInRate: null,
        silenceDurationMs: null,
      },
      expect.objectContaining({ callId: 'CA2', status: 'busy', durationMs: null }),
    ]);
    expect(traceAnalysis(rows, [], m).slowSpans.some((s) => s.name === 'voice_call_status')).toBe(false);
  });
});
