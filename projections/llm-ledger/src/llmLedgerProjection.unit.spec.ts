import { randomUUID } from 'node:crypto';
import { type EventDataInput, llmStream, sessionStream, toAppend } from '@parley/events';
import { eventExamples, llmCallRecordedV1ToAppend, recordedFrom } from '@parley/events/testing';
import type { RecordedEvent } from '@parley/eventstore';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import { describe, expect, it } from 'vitest';
import { PAYLOAD_LIMIT_BYTES } from './ledgerRow.js';
import { llmLedgerProjection } from './llmLedgerProjection.js';

type CallInput = EventDataInput<'LlmCallRecorded'>;

let seq = 0;
/** An LlmCallRecorded as the log gives it back, in the stream it would be appended to. */
function recorded(data: CallInput, eventId: string = randomUUID()): RecordedEvent {
  seq += 1;
  const stream = data.sessionId === undefined ? llmStream(data.projectId) : sessionStream(data.sessionId);
  return recordedFrom(toAppend('LlmCallRecorded', data, {}, eventId), {
    stream,
    position: { commit: BigInt(seq), prepare: BigInt(seq) },
  });
}

const example = eventExamples.LlmCallRecorded;
const payload = {
  prompt: [
    { role: 'system', content: 'You are a billing assistant.' },
    { role: 'user', content: 'I was charged twice for my November invoice.' },
  ],
  response: { role: 'assistant', content: 'Sorry about that. Shall I refund the duplicate?' },
};

describe('llm-ledger handlers', () => {
  it('derives every column of a session call exactly, and keeps the payload apart', () => {
    const eventId = randomUUID();
    const state = projectInMemory(llmLedgerProjection, [
      recorded({ ...example, sourceId: 'agent_billing_v7', payload }, eventId),
    ]);
    expect(memoryRows(state, 'llm_ledger')).toEqual([
      {
        project_id: 'proj_acme_support',
        id: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0:llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
        call_id: 'llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
        session_id: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0',
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
        event_id: eventId,
        model: 'gpt-4o-mini-2024-07-18',
        provider: 'openai',
        agent_name: 'billing-assistant',
        environment: 'production',
        channel: 'voice_pipeline',
        channel_type: 'pstn',
        status: 'success',
        status_code: 200,
        input_tokens: 1843,
        cached_tokens: 1024,
        completion_tokens: 61,
        reasoning_tokens: 0,
        output_tokens: 61,
        total_tokens: 1904,
        latency_ms: 1289,
        time_to_first_token_ms: 342,
        streaming_used: true,
        cost: 0.00031305,
        started_at: new Date('2024-11-21T09:15:07.480Z'),
        source: 'runtime',
        source_subtype: 'response_generation',
        source_id: 'agent_billing_v7',
        payload_state: 'available',
        payload_bytes: Buffer.byteLength(JSON.stringify(payload)),
      },
    ]);
    expect(memoryRows(state, 'llm_ledger_payloads')).toEqual([
      {
        project_id: 'proj_acme_support',
        id: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0:llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
        payload,
      },
    ]);
  });

  it('stores dev as development, and unknown for a missing model or provider', () => {
    const { model: _m, provider: _p, ...rest } = example;
    const [row] = memoryRows(
      projectInMemory(llmLedgerProjection, [recorded({ ...rest, environment: 'dev', status: 'failed' })]),
      'llm_ledger',
    );
    expect(row).toMatchObject({ environment: 'development', model: 'unknown', provider: 'unknown' });
    expect(row).toMatchObject({ status: 'failed', payload_state: 'not_stored', payload_bytes: 0 });
  });

  it('stores calls of VoiceXML sessions recorded as `vxml` under the spec’s `voice_vxml`', () => {
    for (const channel of ['vxml', 'voice_vxml'] as const) {
      const [row] = memoryRows(
        projectInMemory(llmLedgerProjection, [recorded({ ...example, channel, channelType: 'vxml' })]),
        'llm_ledger',
      );
      expect(row).toMatchObject({ channel: 'voice_vxml', channel_type: 'vxml' });
    }
  });

  it('keeps other environments as recorded', () => {
    for (const environment of ['staging', 'production', 'working-copy'] as const) {
      const [row] = memoryRows(
        projectInMemory(llmLedgerProjection, [recorded({ ...example, environment })]),
        'llm_ledger',
      );
      expect(row?.environment).toBe(environment);
    }
  });

  it('records a design-time call (stream llm-<projectId>) with no session, channel or environment', () => {
    const designTime: CallInput = {
      callId: 'llm_design_0001',
      projectId: 'proj_acme_support',
      agentName: 'studio-copilot',
      provider: 'anthropic',
      model: 'claude-3-5-sonnet-20241022',
      status: 'success',
      statusCode: 200,
      usage: {
        inputTokens: 5210,
        cachedTokens: 0,
        completionTokens: 744,
        reasoningTokens: 0,
        outputTokens: 744,
        totalTokens: 5954,
      },
      latencyMs: 8123,
      timeToFirstTokenMs: 8123,
      streamingUsed: false,
      cost: 0.026790000000000001,
      source: 'evals',
      sourceSubtype: 'evaluation_suite_generation',
      sourceId: 'eval_suite_42',
      startedAt: '2024-11-20T17:02:44.000+01:00',
    };
    const event = recorded(designTime);
    expect(event.stream).toBe('llm-proj_acme_support');
    const [row] = memoryRows(projectInMemory(llmLedgerProjection, [event]), 'llm_ledger');
    expect(row).toMatchObject({
      id: 'proj_acme_support:llm_design_0001',
      session_id: null,
      trace_id: null,
      environment: null,
      channel: null,
      channel_type: null,
      source: 'evals',
      source_subtype: 'evaluation_suite_generation',
      source_id: 'eval_suite_42',
      cost: 0.02679,
      started_at: new Date('2024-11-20T16:02:44.000Z'),
    });
  });

  it('reads version 1 events through the upcaster', () => {
    const v1 = { ...llmCallRecordedV1ToAppend(), schemaVersion: 1 };
    const [row] = memoryRows(projectInMemory(llmLedgerProjection, [recordedFrom(v1)]), 'llm_ledger');
    expect(row).toMatchObject({
      input_tokens: 912,
      cached_tokens: 0,
      completion_tokens: 148,
      reasoning_tokens: 0,
      output_tokens: 148,
      total_tokens: 1060,
      latency_ms: 2414,
      time_to_first_token_ms: 382,
      channel: 'web_chat',
      channel_type: null,
    });
  });

  it('replaces a call recorded again: the last record wins in both tables', () => {
    const first = recorded({ ...example, payload });
    const again = recorded({ ...example, latencyMs: 1300 });
    const state = projectInMemory(llmLedgerProjection, [first, again]);
    const rows = memoryRows(state, 'llm_ledger');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ latency_ms: 1300, event_id: again.eventId, payload_state: 'not_stored' });
    expect(memoryRows(state, 'llm_ledger_payloads')).toEqual([]);
  });

  it('does not keep a payload too large to ever fit a page', () => {
    const huge = { prompt: 'x'.repeat(PAYLOAD_LIMIT_BYTES), response: '' };
    const state = projectInMemory(llmLedgerProjection, [recorded({ ...example, payload: huge })]);
    expect(memoryRows(state, 'llm_ledger')[0]).toMatchObject({
      payload_state: 'too_large',
      payload_bytes: 0,
    });
    expect(memoryRows(state, 'llm_ledger_payloads')).toEqual([]);
  });

  it('stores the current source and subtype names of calls recorded with older ones', () => {
    const state = projectInMemory(llmLedgerProjection, [
      recorded({ ...example, callId: 'a', source: 'Agent-Session', sourceSubtype: 'response_gen' }),
      recorded({ ...example, callId: 'b', source: 'search ai', sourceSubtype: 'query_intelligence' }),
      // An older subtype name is translated only under the sources it belongs to.
      recorded({ ...example, callId: 'c', source: 'runtime', sourceSubtype: 'nl_to_sql' }),
    ]);
    expect(memoryRows(state, 'llm_ledger').map((r) => [r.call_id, r.source, r.source_subtype])).toEqual([
      ['a', 'runtime', 'response_generation'],
      ['b', 'knowledge', 'searchai_kb_query_intelligence'],
      ['c', 'runtime', 'nl_to_sql'],
    ]);
  });

  it('ignores the session events around the calls', () => {
    const started = recordedFrom(toAppend('SessionStarted', eventExamples.SessionStarted));
    const state = projectInMemory(llmLedgerProjection, [started]);
    expect(memoryRows(state, 'llm_ledger')).toEqual([]);
    expect(llmLedgerProjection.eventTypes).toEqual(['LlmCallRecorded']);
  });
});
