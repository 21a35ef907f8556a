import { type EventData, type ParleyEvent, sessionStream, TRACE_EVENT_TYPES } from '@parley/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentNotFoundError,
  ProjectNotFoundError,
  ProviderFailedError,
  SessionEndedError,
  SessionNotFoundError,
} from '../errors.js';
import { createPriceCards } from '../pricing/index.js';
import type { LlmProvider, LlmRequest } from '../providers/types.js';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { DEFAULT_BLOCKED_REPLY } from './runtime.js';

/**
 * A stand-in for a real model (registered as `openai-compatible`): fixed usage with cached and
 * reasoning tokens, so that cost is not zero; `fail` in the message makes it throw.
 */
const requests: LlmRequest[] = [];
const pricedProvider: LlmProvider = {
  name: 'openai-compatible',
  async complete(req) {
    requests.push(req);
    const last = req.messages.at(-1)?.content ?? '';
    if (last.includes('throw')) throw new Error('socket hang up');
    return {
      text: `priced answer to ${last}`,
      toolCalls: [],
      finishReason: 'stop',
      usage: {
        inputTokens: 1000,
        cachedTokens: 400,
        completionTokens: 200,
        reasoningTokens: 100,
        outputTokens: 300,
        totalTokens: 1300,
      },
      latencyMs: 120,
      timeToFirstTokenMs: 120,
      streamingUsed: false,
      statusCode: 200,
      provider: 'openai-compatible',
      model: 'gpt-4o-2024-08-06',
    };
  },
};

let h: RuntimeHarness;
beforeAll(async () => {
  h = await createRuntimeHarness({ providers: [pricedProvider] });
  await h.agents.create(h.projectId, {
    name: 'support',
    systemPrompt: 'You help customers.',
    tools: [
      { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      { name: 'lookup_order' },
    ],
  });
  await h.agents.create(h.projectId, { name: 'billing', systemPrompt: 'You handle invoices.' });
  await h.agents.create(h.projectId, { name: 'priced', provider: 'openai-compatible', model: 'gpt-4o' });
});
afterAll(() => h?.close());

const turn = (message: string, extra: Partial<Parameters<RuntimeHarness['runtime']['runTurn']>[0]> = {}) =>
  h.runtime.runTurn({ projectId: h.projectId, tenantId: h.tenantId, message, ...extra });

type Trace = EventData<'TraceEventRecorded'>;
const traces = (events: ParleyEvent[]): Trace[] =>
  events.flatMap((e) => (e.type === 'TraceEventRecorded' ? [e.data] : []));
const ofType = <T extends ParleyEvent['type']>(events: ParleyEvent[], type: T) =>
  events.flatMap((e) => (e.type === type ? [e.data as EventData<T>] : []));

describe('runTurn', () => {
  it('records a new session: message first, then the whole turn in one append', async () => {
    const result = await turn('Hello there');
    expect(result.created).toBe(true);
    expect(result.agentName).toBe('support'); // the project's oldest agent
    expect(result.reply.text).toMatch(/^\(scripted\) /);
    expect(result.ended).toBeNull();
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens + result.usage.outputTokens);
    expect(result.usage.inputTokens).toBeGreaterThan(0);

    const events = await h.events(result.sessionId);
    expect(events.map((e) => e.type)).toEqual([
      'SessionStarted',
      'MessageReceived',
      'TraceEventRecorded', // response (root)
      'TraceEventRecorded', // state_change (new -> active)
      'TraceEventRecorded', // llm_call
      'LlmCallRecorded',
      'AgentReplied',
    ]);
    const [started, message] = [ofType(events, 'SessionStarted')[0]!, ofType(events, 'MessageReceived')[0]!];
    expect(started).toMatchObject({
      sessionId: result.sessionId,
      projectId: h.projectId,
      tenantId: h.tenantId,
      agentName: 'support',
      channel: 'api',
      environment: 'dev',
    });
    expect(message).toMatchObject({ messageId: result.userMessageId, text: 'Hello there' });
    // Two appends: the message's transaction, then the turn's (one transaction for all of it).
    const commits = events.map((e) => e.recorded.position.commit);
    expect(new Set(commits.slice(0, 2)).size).toBe(1);
    expect(new Set(commits.slice(2)).size).toBe(1);
    expect(commits[2]).not.toBe(commits[0]);

    const [root, ...children] = traces(events);
    expect(root).toMatchObject({ eventType: 'response', name: 'support', status: 'ok' });
    expect(root?.parentSpanId).toBeUndefined();
    for (const child of children) {
      expect(child.traceId).toBe(root?.traceId);
      expect(child.parentSpanId).toBe(root?.spanId);
    }
    const llmTrace = children.find((t) => t.eventType === 'llm_call');
    const call = ofType(events, 'LlmCallRecorded')[0]!;
    expect(llmTrace?.llmCallId).toBe(call.callId);
    expect(call).toMatchObject({
      sessionId: result.sessionId,
      tenantId: h.tenantId,
      provider: 'scripted',
      model: 'scripted-1',
      agentName: 'support',
      status: 'success',
      statusCode: 200,
      cost: 0,
      priceCardVersion: createPriceCards().current().version,
      source: 'runtime',
      sourceSubtype: 'response_generation',
      traceId: root?.traceId,
      spanId: llmTrace?.spanId,
    });
    expect(call.usage).toEqual(result.usage);
    expect(call.payload).toBeDefined(); // payloads are stored unless the project says not to
    const reply = ofType(events, 'AgentReplied')[0]!;
    expect(reply).toMatchObject({
      messageId: result.reply.messageId,
      inReplyTo: result.userMessageId,
      agentName: 'support',
      text: result.reply.text,
      isLlmGenerated: true,
    });
    // The result carries the reply's provenance and the turn's model calls (HTTP async callbacks).
    expect(result.reply).toMatchObject({ usedFallback: false, isLlmGenerated: true });
    expect(result.llmCalls).toBe(1);
  });

  it('continues a session with its history and starts a new trace per turn', async () => {
    const first = await turn('My name is Ada');
    const second = await turn('What is my name?', { sessionId: first.sessionId });
    expect(second).toMatchObject({ sessionId: first.sessionId, created: false });
    const events = await h.events(first.sessionId);
    expect(ofType(events, 'MessageReceived').map((m) => m.text)).toEqual([
      'My name is Ada',
      'What is my name?',
    ]);
    expect(ofType(events, 'SessionStarted')).toHaveLength(1);
    const roots = traces(events).filter((t) => t.eventType === 'response');
    expect(roots).toHaveLength(2);
    expect(roots[0]?.traceId).not.toBe(roots[1]?.traceId);
    const payload = ofType(events, 'LlmCallRecorded')[1]?.payload?.prompt as { messages: unknown[] };
    expect(payload.messages).toEqual([
      { role: 'system', content: 'You help customers.' },
      { role: 'user', content: 'My name is Ada' },
      { role: 'assistant', content: first.reply.text },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('produces every trace event type through the scripted provider', async () => {
    await h.agents.create(h.projectId, {
      name: 'planner',
      tools: [{ name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      guardrails: { blockedTerms: ['password'] },
      handoffs: { targets: ['billing'] },
    });
    const a = await turn('Plan my day /tool weather city=Paris /handoff billing change of topic', {
      agentName: 'planner',
    });
    const b = await turn('/error 503', { sessionId: a.sessionId }).catch((err: unknown) => err);
    expect(b).toBeInstanceOf(ProviderFailedError);
    const events = await h.events(a.sessionId);
    const types = new Set(traces(events).map((t) => t.eventType));
    expect([...types].sort()).toEqual([...TRACE_EVENT_TYPES].sort());

    const t = traces(events);
    const toolCall = t.find((x) => x.eventType === 'tool_call' && x.name === 'weather');
    const toolResult = t.find((x) => x.eventType === 'tool_result' && x.name === 'weather');
    expect(toolCall).toMatchObject({ status: 'ok', attributes: { kind: 'builtin', agent: 'planner' } });
    expect(toolResult).toMatchObject({ status: 'ok', parentSpanId: toolCall?.spanId });
    expect(String(toolResult?.attributes?.result)).toContain('Paris');
    expect(t.find((x) => x.eventType === 'tool_call' && x.name === 'handoff')).toMatchObject({
      status: 'ok',
      attributes: { kind: 'system' },
    });
    expect(t.find((x) => x.decisionKind === 'handoff')).toMatchObject({ name: 'billing' });
    const handoff = t.find((x) => x.eventType === 'handoff');
    expect(handoff).toMatchObject({
      name: 'billing',
      status: 'ok',
      attributes: { from: 'planner', to: 'billing' },
    });
    expect(t.find((x) => x.eventType === 'guardrail_eval')).toMatchObject({
      name: 'blocked_terms',
      status: 'ok',
      attributes: { stage: 'input', agent: 'planner' },
    });
    // The handoff is a typed fact; the target answers in the same turn.
    expect(ofType(events, 'AgentHandedOff')).toEqual([
      expect.objectContaining({
        fromAgent: 'planner',
        toAgent: 'billing',
        target: 'local',
        spanId: handoff?.spanId,
      }),
    ]);
    const calls = ofType(events, 'LlmCallRecorded');
    expect(calls.map((c) => [c.sourceSubtype, c.agentName])).toEqual([
      ['response_generation', 'planner'],
      ['tool_use_iteration', 'billing'],
      ['response_generation', 'billing'],
    ]);
    expect(calls[2]).toMatchObject({ status: 'failed', statusCode: 503, cost: 0 });
    expect(ofType(events, 'AgentReplied').map((r) => r.agentName)).toEqual(['billing']);
    expect(a).toMatchObject({
      agentName: 'billing',
      handedOff: { from: 'planner', to: 'billing', remote: false },
    });
    expect(a.reply.text).toContain('Handing you over to billing');
    const next = await turn('thanks', { sessionId: a.sessionId });
    expect(next.agentName).toBe('billing');
  });

  it('ends the session with each outcome the model can give, escalation included', async () => {
    const expectedStatus = {
      contained_resolved: 'completed',
      contained_partial: 'completed',
      contained_unresolved: 'completed',
      escalated: 'escalated',
    } as const;
    for (const containmentType of Object.keys(expectedStatus) as (keyof typeof expectedStatus)[]) {
      const result = await turn(`All done /end ${containmentType}`);
      const status = expectedStatus[containmentType];
      expect(result.ended).toEqual({ status, containmentType });
      const events = await h.events(result.sessionId);
      expect(events.at(-1)?.type).toBe('SessionEnded');
      expect(ofType(events, 'SessionEnded')[0]).toMatchObject({ status, containmentType });
      expect(events.at(-2)?.type).toBe('AgentReplied');
      const t = traces(events);
      expect(t.find((x) => x.eventType === 'state_change' && x.attributes?.to === status)).toBeDefined();
      expect(t.find((x) => x.eventType === 'decision')).toMatchObject({
        name: containmentType,
        decisionKind: containmentType === 'escalated' ? 'escalation' : 'end_conversation',
      });
      await expect(turn('hello again', { sessionId: result.sessionId })).rejects.toBeInstanceOf(
        SessionEndedError,
      );
    }
    const escalated = await turn('I want a human /escalate');
    expect(escalated.ended).toEqual({ status: 'escalated', containmentType: 'escalated' });
  });

  it('attaches the ACTION_SET to the reply', async () => {
    const result = await turn('Pick one /buttons Yes | No /select Size: S | M | L /input Your email');
    expect(result.reply.actionSet?.elements.map((e) => e.type)).toEqual([
      'button',
      'button',
      'select',
      'text_input',
    ]);
    const reply = ofType(await h.events(result.sessionId), 'AgentReplied')[0];
    expect(reply?.actionSet).toEqual(result.reply.actionSet);
  });

  it('streams text deltas that add up to the reply, then usage', async () => {
    const seen: string[] = [];
    let usage: unknown;
    const result = await h.runtime.runTurn(
      { projectId: h.projectId, tenantId: h.tenantId, message: 'Tell me something nice', stream: true },
      {
        onEvent: (e) => {
          if (e.type === 'text_delta') seen.push(e.delta);
          else usage = e;
        },
      },
    );
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.join('')).toBe(result.reply.text);
    expect(usage).toEqual({
      type: 'usage',
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
    });
    const call = ofType(await h.events(result.sessionId), 'LlmCallRecorded')[0];
    expect(call?.streamingUsed).toBe(true);
  });
});

describe('failures and atomicity', () => {
  it('a failing provider records the error trace and a failed call, no reply; the session stays open', async () => {
    const first = await turn('hello');
    const err = await turn('/error 500', { sessionId: first.sessionId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderFailedError);
    expect(err).toMatchObject({ code: 'PROVIDER_FAILED', status: 502 });
    const events = await h.events(first.sessionId);
    const failedTurn = events.slice(-4);
    expect(failedTurn.map((e) => e.type)).toEqual([
      'TraceEventRecorded',
      'TraceEventRecorded',
      'TraceEventRecorded',
      'LlmCallRecorded',
    ]);
    expect(traces(failedTurn).map((t) => [t.eventType, t.status])).toEqual([
      ['response', 'error'],
      ['llm_call', 'error'],
      ['error', 'error'],
    ]);
    expect(ofType(events, 'MessageReceived')).toHaveLength(2);
    expect(ofType(events, 'AgentReplied')).toHaveLength(1);
    const retry = await turn('hello again', { sessionId: first.sessionId });
    expect(retry.created).toBe(false);
  });

  it('a provider that throws is recorded as a failed call with status code 0', async () => {
    const err = await turn('please throw', { agentName: 'priced' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderFailedError);
    const sessions = await h.db.pool.query<{ stream_id: string }>(
      `select distinct stream_id from events where type = 'LlmCallRecorded' and data->>'agentName' = 'priced' and data->>'status' = 'failed'`,
    );
    expect(sessions.rows.length).toBeGreaterThan(0);
  });

  it('an aborted turn records the abort and no reply', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = await h.runtime
      .runTurn(
        { projectId: h.projectId, tenantId: h.tenantId, message: 'slow /delay 5000', stream: true },
        { signal: controller.signal, onEvent: () => {} },
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TURN_ABORTED' });
    const { rows } = await h.db.pool.query<{ stream_id: string }>(
      `select stream_id from events where type = 'TraceEventRecorded' and data->>'name' = 'aborted'`,
    );
    expect(rows).toHaveLength(1);
    const sessionId = rows[0]!.stream_id.replace(/^session-/, '');
    const events = await h.events(sessionId);
    expect(ofType(events, 'AgentReplied')).toHaveLength(0);
    expect(ofType(events, 'LlmCallRecorded')[0]).toMatchObject({ status: 'failed', statusCode: 0 });
  });

  it('concurrent turns in one session each land as one contiguous batch', async () => {
    const first = await turn('start');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => turn(`message ${i}`, { sessionId: first.sessionId })),
    );
    const events = await h.events(first.sessionId);
    for (const result of results) {
      const mine = events.filter((e) => e.recorded.metadata.correlationId === result.userMessageId);
      const revisions = mine.slice(1).map((e) => Number(e.recorded.revision));
      // The message, then the turn's batch: consecutive revisions.
      expect(revisions).toEqual(revisions.map((_, i) => revisions[0]! + i));
      expect(mine.at(-1)?.type).toBe('AgentReplied');
    }
    expect(ofType(events, 'AgentReplied')).toHaveLength(7);
  });
});

describe('costs and payloads', () => {
  it('prices calls from the current price card (cached tokens once)', async () => {
    const result = await turn('hi', { agentName: 'priced' });
    const call = ofType(await h.events(result.sessionId), 'LlmCallRecorded')[0]!;
    // gpt-4o on the current card: 2.5 input, 1.25 cached, 10 output (reasoning billed as output).
    const expected = (600 * 2.5 + 400 * 1.25 + 200 * 10 + 100 * 10) / 1e6;
    expect(call.cost).toBeCloseTo(expected, 10);
    expect(call.priceCardVersion).toBe(createPriceCards().current().version);
    expect(call).toMatchObject({ provider: 'openai-compatible', model: 'gpt-4o-2024-08-06' });
  });

  it('stores no payload when the project says payloads.store = false', async () => {
    const other = await h.newProject({ payloads: { store: false } });
    const result = await h.runtime.runTurn({ ...other, message: 'secret stuff' });
    const call = ofType(await h.events(result.sessionId), 'LlmCallRecorded')[0]!;
    expect(call.payload).toBeUndefined();
    expect(result.agentName).toBe('default'); // no agents: the built-in scripted agent
  });
});

describe('guardrails configured on the agent', () => {
  it('blocks a message with a blocked term without calling the model', async () => {
    await h.agents.create(h.projectId, {
      name: 'guarded',
      guardrails: { blockedTerms: ['password'], maxReplyChars: 20 },
    });
    const blocked = await turn('my PASSWORD is hunter2', { agentName: 'guarded' });
    // The blocked reply is the agent's own fixed text: the output checks do not run on it.
    expect(blocked.reply.text).toBe(DEFAULT_BLOCKED_REPLY);
    let events = await h.events(blocked.sessionId);
    expect(ofType(events, 'LlmCallRecorded')).toHaveLength(0);
    expect(
      traces(events)
        .filter((t) => t.eventType === 'guardrail_eval')
        .map((t) => [t.name, t.status]),
    ).toEqual([['blocked_terms', 'blocked']]);
    expect(ofType(events, 'AgentReplied')[0]).toMatchObject({ isLlmGenerated: false });
    expect(blocked.reply).toMatchObject({ usedFallback: false, isLlmGenerated: false });
    expect(blocked.llmCalls).toBe(0);

    const cut = await turn('a long question about things', { agentName: 'guarded' });
    expect(cut.reply.text).toHaveLength(20);
    events = await h.events(cut.sessionId);
    expect(
      traces(events)
        .filter((t) => t.eventType === 'guardrail_eval')
        .map((t) => t.status),
    ).toEqual(['ok', 'blocked']);
  });
});

describe('errors and endSession', () => {
  it('refuses unknown sessions, other projects, other tenants and unknown agents', async () => {
    const result = await turn('hi');
    const other = await h.newProject();
    await expect(turn('x', { sessionId: 'sess_nope' })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(
      h.runtime.runTurn({ ...other, message: 'x', sessionId: result.sessionId }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(
      h.runtime.runTurn({ projectId: h.projectId, tenantId: other.tenantId, message: 'x' }),
    ).rejects.toBeInstanceOf(ProjectNotFoundError);
    await expect(turn('x', { agentName: 'nobody' })).rejects.toBeInstanceOf(AgentNotFoundError);
    await expect(h.runtime.endSession(other.projectId, result.sessionId)).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it('ends a session once; later messages are refused', async () => {
    const result = await turn('hi');
    expect(await h.runtime.endSession(h.projectId, result.sessionId)).toEqual({
      ended: true,
      status: 'ended',
    });
    expect(await h.runtime.endSession(h.projectId, result.sessionId, 'again')).toEqual({
      ended: false,
      status: 'ended',
    });
    const events = await h.events(result.sessionId);
    expect(ofType(events, 'SessionEnded')).toEqual([
      expect.objectContaining({ status: 'ended', reason: 'api' }),
    ]);
    await expect(turn('more', { sessionId: result.sessionId })).rejects.toMatchObject({
      code: 'SESSION_ENDED',
      sessionStatus: 'ended',
    });
    // The stream holds nothing after the end.
    const { rows } = await h.db.pool.query<{ n: number }>(
      'select count(*)::int as n from events where stream_id = $1',
      [sessionStream(result.sessionId)],
    );
    expect(rows[0]?.n).toBe(events.length);
  });
});

describe('channel fields and turn-scoped message metadata', () => {
  it('records the external message id, channel metadata, message time and message metadata on MessageReceived', async () => {
    const result = await turn('hello', {
      externalMessageId: 'wamid.123',
      channelMetadata: { chatId: 42, sender: { name: 'Ann' } },
      sentAt: '2026-11-21T10:00:00.000Z',
      messageMetadata: { tier: 'gold' },
    });
    const received = ofType(await h.events(result.sessionId), 'MessageReceived')[0]!;
    expect(received).toMatchObject({
      externalMessageId: 'wamid.123',
      channelMetadata: { chatId: 42, sender: { name: 'Ann' } },
      sentAt: '2026-11-21T10:00:00.000Z',
      messageMetadata: { tier: 'gold' },
    });
  });

  it('fills the system prompt from this turn’s metadata only', async () => {
    await h.agents.create(h.projectId, {
      name: 'tiered',
      provider: 'openai-compatible',
      model: 'gpt-4o',
      systemPrompt: 'Customer tier: {{session.messageMetadata.tier}}; order {{message_metadata.order.id}}.',
    });
    requests.length = 0;
    const first = await turn('one', {
      agentName: 'tiered',
      messageMetadata: { tier: 'gold', order: { id: 'A-1' } },
    });
    await turn('two', { sessionId: first.sessionId });
    const systems = requests.map((r) => r.messages.find((m) => m.role === 'system')?.content);
    expect(systems).toEqual(['Customer tier: gold; order A-1.', 'Customer tier: ; order .']);
    const received = ofType(await h.events(first.sessionId), 'MessageReceived');
    expect(received.map((m) => m.messageMetadata)).toEqual([
      { tier: 'gold', order: { id: 'A-1' } },
      undefined,
    ]);
  });
});
