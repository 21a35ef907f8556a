import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../../spec/harness.js';

let h: RuntimeHarness;

beforeAll(async () => {
  h = await createRuntimeHarness();
  await h.agents.create(h.projectId, {
    name: 'voice',
    provider: 'openai-compatible',
    model: 'gpt-realtime',
    systemPrompt: 'You answer the phone.',
    tools: [
      { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      {
        name: 'slow_check',
        implementation: { type: 'http', url: 'https://example.com/check' },
        suspend: { timeoutSeconds: 60 },
      },
    ],
  });
});
afterAll(async () => {
  await h?.close();
});

const response = (id: string, functionCalls: string[] = []) => ({
  responseId: id,
  provider: 'openai',
  model: 'gpt-realtime',
  status: 'completed' as const,
  usage: { inputTokens: 100, cachedTokens: 10, outputTokens: 40 },
  startedAt: new Date(),
  latencyMs: 300,
  timeToFirstAudioMs: 120,
  transcript: 'It is sunny.',
  functionCalls,
});

describe('realtime conversations', () => {
  it('records a turn as a text turn is recorded, with realtime_response LLM calls', async () => {
    const base = { projectId: h.projectId, tenantId: h.tenantId, agentName: 'voice', channelType: 'pstn' };
    const conversation = await h.runtime.openRealtime({ ...base, channelMetadata: { callSid: 'CA1' } });
    expect(conversation.agent).toMatchObject({
      name: 'voice',
      model: 'gpt-realtime',
      instructions: 'You answer the phone.',
      history: [],
    });
    const tools = conversation.agent.tools.map((t) => t.name);
    expect(tools).toContain('weather');
    expect(tools).toContain('end_conversation');
    expect(tools).not.toContain('handoff');
    expect(tools).not.toContain('slow_check'); // a suspending tool
    // Nothing is recorded before the first turn finishes.
    expect(await h.events(conversation.sessionId)).toEqual([]);

    const turn = conversation.beginTurn();
    const tool = await turn.runTool({ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' });
    expect(tool.status).toBe('ok');
    expect(JSON.parse(tool.output)).toMatchObject({ city: 'Oslo', demo: true });
    expect(await turn.runTool({ id: 'call_2', name: 'slow_check', arguments: '{}' })).toMatchObject({
      status: 'error',
      output: JSON.stringify({ error: 'unknown_tool' }),
    });
    turn.recordResponse(response('resp_1', ['weather', 'slow_check']));
    turn.recordResponse(response('resp_2'));
    expect(
      await turn.finish({ userText: 'weather in Oslo?', agentText: 'It is sunny.', interrupted: false }),
    ).toEqual({
      sessionId: conversation.sessionId,
      ended: false,
    });

    const events = await h.events(conversation.sessionId);
    expect(events.map((e) => e.type)).toEqual([
      'SessionStarted',
      'MessageReceived',
      'TraceEventRecorded', // response (root)
      'TraceEventRecorded', // session_state → active
      'TraceEventRecorded', // tool_call weather
      'TraceEventRecorded', // tool_result
      'TraceEventRecorded', // tool_call slow_check (unknown_tool)
      'TraceEventRecorded', // tool_result
      'TraceEventRecorded', // llm_call resp_1
      'TraceEventRecorded', // llm_call resp_2
      'LlmCallRecorded',
      'LlmCallRecorded',
      'AgentReplied',
    ]);
    const data = events.map((e) => e.data as Record<string, unknown>);
    expect(data[0]).toMatchObject({ channel: 'voice_realtime', channelType: 'pstn', agentName: 'voice' });
    expect(data[1]).toMatchObject({ text: 'weather in Oslo?', channelMetadata: { callSid: 'CA1' } });
    expect(data[2]).toMatchObject({
      eventType: 'response',
      name: 'voice',
      attributes: { voiceMode: 'realtime', interrupted: false, llmCalls: 2 },
    });
    expect(data[10]).toMatchObject({
      callId: 'llm_rt_resp_1',
      source: 'runtime',
      sourceSubtype: 'realtime_response',
      sourceId: 'resp_1',
      provider: 'openai',
      model: 'gpt-realtime',
      status: 'success',
      streamingUsed: true,
      latencyMs: 300,
      timeToFirstTokenMs: 120,
      usage: { inputTokens: 100, cachedTokens: 10, completionTokens: 40, outputTokens: 40, totalTokens: 140 },
    });
    expect(data[12]).toMatchObject({ text: 'It is sunny.', isLlmGenerated: true });

    // The same session continues in a second call: its history reaches the model.
    const again = await h.runtime.openRealtime({ ...base, sessionId: conversation.sessionId });
    expect(again.sessionId).toBe(conversation.sessionId);
    expect(again.agent.history.map((m) => [m.role, m.content])).toEqual([
      ['user', 'weather in Oslo?'],
      ['assistant', 'It is sunny.'],
    ]);
  });

  it('ends the session when a tool ends the conversation', async () => {
    const conversation = await h.runtime.openRealtime({
      projectId: h.projectId,
      tenantId: h.tenantId,
      agentName: 'voice',
    });
    const turn = conversation.beginTurn();
    const end = await turn.runTool({
      id: 'call_end',
      name: 'end_conversation',
      arguments: JSON.stringify({ outcome: 'contained_resolved', reason: 'caller is done' }),
    });
    expect(end.ending).toBe(true);
    turn.recordResponse(response('resp_end', ['end_conversation']));
    expect((await turn.finish({ userText: 'bye', agentText: 'Goodbye.', interrupted: false })).ended).toBe(
      true,
    );
    const events = await h.events(conversation.sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'SessionEnded', data: { status: 'completed' } });
    await expect(
      h.runtime.openRealtime({
        projectId: h.projectId,
        tenantId: h.tenantId,
        sessionId: conversation.sessionId,
      }),
    ).rejects.toMatchObject({ code: 'SESSION_ENDED' });
  });
});
