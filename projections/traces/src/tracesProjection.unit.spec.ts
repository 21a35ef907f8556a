import { randomUUID } from 'node:crypto';
import { toAppend } from '@parley/events';
import { eventDataArbitraries, eventExamples, recordedFrom } from '@parley/events/testing';
import type { EventToAppend, RecordedEvent } from '@parley/eventstore';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exampleSession } from './testing/sessionTrace.js';
import { tracesProjection } from './tracesProjection.js';

const recorded = (events: readonly EventToAppend[]): RecordedEvent[] =>
  events.map((e, i) =>
    recordedFrom(e, { revision: BigInt(i), position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) } }),
  );

describe('tracesProjection', () => {
  it('projects a session: one row per trace event, per call, and the session', () => {
    const { events } = exampleSession('proj_1', 'sess_1');
    const state = projectInMemory(tracesProjection, recorded(events));
    const traces = memoryRows(state, 'trace_events');
    expect(traces).toHaveLength(13);
    const tool = traces.find((r) => r.span_id === 'tool-1');
    const toolEvent = events.find((e) => (e.data as { spanId?: string }).spanId === 'tool-1')!;
    expect(tool).toEqual({
      project_id: 'proj_1',
      session_id: 'sess_1',
      event_id: toolEvent.eventId,
      seq: events.indexOf(toolEvent),
      trace_id: 'trace-sess_1',
      span_id: 'tool-1',
      parent_span_id: 'turn-1',
      event_type: 'tool_call',
      name: 'lookup_invoices',
      status: null,
      decision_kind: null,
      llm_call_id: null,
      started_at: new Date('2026-11-21T09:00:00.700Z'),
      duration_ms: 300,
      ended_at: new Date('2026-11-21T09:00:01.000Z'),
      attributes: { parameters: { customerId: 'cus_1, "vip"' } },
    });
    const generations = memoryRows(state, 'trace_generations');
    expect(generations.map((g) => g.call_id)).toEqual(['call-1', 'call-2']);
    expect(generations[1]).toMatchObject({
      session_id: 'sess_1',
      status: 'failed',
      status_code: 500,
      input_tokens: 9000,
      prompt_stored: false,
      prompt_message_count: null,
      prompt_bytes: null,
    });
    expect(memoryRows(state, 'trace_sessions')).toEqual([
      {
        project_id: 'proj_1',
        session_id: 'sess_1',
        agent_name: 'billing-assistant',
        channel: 'voice_pipeline',
        environment: 'production',
        started_at: new Date('2026-11-21T09:00:00.000Z'),
      },
    ]);
  });

  it('keeps prompt metadata, not the prompt; ignores design-time calls', () => {
    const withPayload = toAppend('LlmCallRecorded', {
      ...eventExamples.LlmCallRecorded,
      projectId: 'p',
      sessionId: 's',
      payload: {
        prompt: {
          messages: [
            { role: 'system', content: 'x' },
            { role: 'user', content: 'héllo' },
          ],
          tools: [{}],
        },
        response: { content: 'ok' },
      },
    });
    const designTime = toAppend('LlmCallRecorded', {
      ...eventExamples.LlmCallRecorded,
      projectId: 'p',
      sessionId: undefined,
    });
    const { sessionId: _omit, ...noSession } = designTime.data as Record<string, unknown>;
    const state = projectInMemory(
      tracesProjection,
      recorded([withPayload, { ...designTime, data: noSession }]),
    );
    const [row, ...rest] = memoryRows(state, 'trace_generations');
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      prompt_stored: true,
      prompt_message_count: 2,
      prompt_tool_count: 1,
      prompt_bytes: Buffer.byteLength(
        JSON.stringify({
          messages: [
            { role: 'system', content: 'x' },
            { role: 'user', content: 'héllo' },
          ],
          tools: [{}],
        }),
      ),
      response_bytes: JSON.stringify({ content: 'ok' }).length,
    });
    expect(JSON.stringify(memoryRows(state, 'trace_generations'))).not.toContain('héllo');
    expect(memoryRows(state, 'trace_sessions')).toHaveLength(1);
  });

  it('the earliest SessionStarted wins whatever the order', () => {
    const start = (agentName: string, startedAt: string) =>
      toAppend('SessionStarted', {
        ...eventExamples.SessionStarted,
        projectId: 'p',
        sessionId: 's',
        agentName,
        startedAt,
      });
    const late = start('late', '2026-01-02T00:00:00.000Z');
    const early = start('early', '2026-01-01T00:00:00.000Z');
    for (const order of [
      [late, early],
      [early, late],
    ]) {
      const [row] = memoryRows(projectInMemory(tracesProjection, recorded(order)), 'trace_sessions');
      expect(row?.agent_name).toBe('early');
    }
  });

  it('a replayed batch changes nothing, other types are ignored, and any valid trace event projects', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            eventDataArbitraries.TraceEventRecorded.map((d) => toAppend('TraceEventRecorded', d)),
            eventDataArbitraries.LlmCallRecorded.map((d) => toAppend('LlmCallRecorded', d)),
            eventDataArbitraries.MessageReceived.map((d) => toAppend('MessageReceived', d)),
          ),
          { maxLength: 12 },
        ),
        (events) => {
          const once = projectInMemory(tracesProjection, recorded(events));
          const again = projectInMemory(tracesProjection, recorded(events), {
            ...once,
            checkpoint: { commit: 0n, prepare: 0n },
          });
          for (const table of ['trace_events', 'trace_generations', 'trace_sessions']) {
            expect(memoryRows(again, table)).toEqual(memoryRows(once, table));
          }
          const traces = events.filter((e) => e.type === 'TraceEventRecorded');
          expect(memoryRows(once, 'trace_events')).toHaveLength(traces.length);
        },
      ),
      { numRuns: 200 },
    );
    const unknown = { eventId: randomUUID(), type: 'SomethingNew', data: { projectId: 'p', sessionId: 's' } };
    const state = projectInMemory(tracesProjection, recorded([unknown]));
    expect(memoryRows(state, 'trace_sessions')).toEqual([]);
  });
});
