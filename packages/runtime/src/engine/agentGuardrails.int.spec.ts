import type { EventData, ParleyEvent } from '@parley/events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { createQueuedProvider } from '../testing/queuedProvider.js';
import { DEFAULT_BLOCKED_REPLY } from './runtime.js';

const model = createQueuedProvider('openai-compatible', 'gpt-4o-mini');
/** The guardrail's own model (a second provider), answering the verdicts the test queues. */
const judge = createQueuedProvider('anthropic', 'claude-3-5-haiku-20241022');
let h: RuntimeHarness;

beforeAll(async () => {
  h = await createRuntimeHarness({ providers: [model, judge] });
  await h.agents.create(h.projectId, {
    name: 'careful',
    provider: 'openai-compatible',
    guardrails: {
      pii: { input: 'redact', output: 'block' },
      model: {
        provider: 'anthropic',
        model: 'claude-3-5-haiku',
        policy: 'No medical advice.',
        stages: ['input'],
      },
      blockedReply: 'I cannot share that.',
    },
  });
});
afterAll(() => h?.close());
beforeEach(() => {
  model.requests.length = 0;
  judge.requests.length = 0;
});

const turn = (message: string, extra: Record<string, unknown> = {}) =>
  h.runtime.runTurn({
    projectId: h.projectId,
    tenantId: h.tenantId,
    message,
    agentName: 'careful',
    ...extra,
  });
const ofType = <T extends ParleyEvent['type']>(events: ParleyEvent[], type: T) =>
  events.flatMap((e) => (e.type === type ? [e.data as EventData<T>] : []));
const evals = (events: ParleyEvent[]) =>
  ofType(events, 'TraceEventRecorded')
    .filter((t) => t.eventType === 'guardrail_eval')
    .map((t) => [t.name, t.attributes?.stage, t.status]);

describe('guardrails', () => {
  it('input PII is redacted before the model and the log see it; the model check allows it', async () => {
    judge.queue({ text: 'ALLOW: an address question' });
    model.queue({ text: 'Noted.' });
    const result = await turn('Write to jane@example.com or call +1 415 555 0100, card 4111 1111 1111 1111');
    const redacted = 'Write to [email] or call [phone], card [card]';
    expect(model.requests[0]!.messages.at(-1)?.content).toBe(redacted);
    expect(judge.requests[0]!.messages.at(-1)?.content).toBe(`input message:\n${redacted}`);
    const events = await h.events(result.sessionId);
    expect(ofType(events, 'MessageReceived')[0]?.text).toBe(redacted);
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain('jane@example.com');
    expect(evals(events)).toEqual([
      ['pii', 'input', 'blocked'],
      ['model_check', 'input', 'ok'],
      ['pii', 'output', 'ok'],
    ]);
    const pii = ofType(events, 'TraceEventRecorded').find((t) => t.name === 'pii');
    expect(pii?.attributes).toMatchObject({ action: 'redact', findings: { email: 1, phone: 1, card: 1 } });
    // The check is a ledger row of its own: source and subtype `guardrails`, its own model.
    expect(ofType(events, 'LlmCallRecorded').map((c) => [c.source, c.sourceSubtype, c.model])).toEqual([
      ['guardrails', 'guardrails', 'claude-3-5-haiku-20241022'],
      ['runtime', 'response_generation', 'gpt-4o-mini'],
    ]);
    expect(result.reply.text).toBe('Noted.');
  });

  it('the model check blocks: the blocked reply, no agent model call', async () => {
    judge.queue({ text: 'BLOCK - asks for a diagnosis' });
    const result = await turn('Which pills should I take?');
    expect(result.reply).toMatchObject({ text: 'I cannot share that.', isLlmGenerated: false });
    expect(model.requests).toHaveLength(0);
    const events = await h.events(result.sessionId);
    expect(evals(events)).toEqual([
      ['pii', 'input', 'ok'],
      ['model_check', 'input', 'blocked'],
    ]);
  });

  it('an unreadable verdict blocks unless failOpen', async () => {
    judge.queue({ text: 'maybe?' });
    expect((await turn('hmm')).reply.text).toBe('I cannot share that.');
    await h.agents.update(h.projectId, 'careful', {
      guardrails: {
        model: { provider: 'anthropic', model: 'claude-3-5-haiku', policy: 'x', failOpen: true },
      },
    });
    judge.queue({ text: 'maybe?' });
    model.queue({ text: 'fine' });
    expect((await turn('hmm')).reply.text).toBe('fine');
    await h.agents.update(h.projectId, 'careful', {
      guardrails: {
        pii: { input: 'redact', output: 'block' },
        model: {
          provider: 'anthropic',
          model: 'claude-3-5-haiku',
          policy: 'No medical advice.',
          stages: ['input'],
        },
        blockedReply: 'I cannot share that.',
      },
    });
  });

  it('output PII blocks the reply; the streamed deltas never carried it', async () => {
    judge.queue({ text: 'ALLOW' });
    model.queue({ text: 'Sure, mail boss@corp.example' });
    const deltas: string[] = [];
    const result = await h.runtime.runTurn(
      {
        projectId: h.projectId,
        tenantId: h.tenantId,
        message: 'contact?',
        agentName: 'careful',
        stream: true,
      },
      { onEvent: (e) => (e.type === 'text_delta' ? deltas.push(e.delta) : undefined) },
    );
    expect(deltas).toEqual([]);
    expect(result.reply.text).toBe('I cannot share that.');
    const events = await h.events(result.sessionId);
    expect(evals(events).at(-1)).toEqual(['pii', 'output', 'blocked']);
    expect(ofType(events, 'AgentReplied')[0]).toMatchObject({
      text: 'I cannot share that.',
      isLlmGenerated: false,
    });
  });

  it('an agent without guardrails records no evaluation and answers the default blocked reply nowhere', async () => {
    await h.agents.create(h.projectId, { name: 'plain', provider: 'openai-compatible' });
    model.queue({ text: 'hi' });
    const result = await h.runtime.runTurn({
      projectId: h.projectId,
      tenantId: h.tenantId,
      message: 'a@b.io',
      agentName: 'plain',
    });
    expect(evals(await h.events(result.sessionId))).toEqual([]);
    expect(result.reply.text).not.toBe(DEFAULT_BLOCKED_REPLY);
  });
});
