import { actionSetSchema, completeUsage } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmMessage, LlmRequest, LlmResponse } from '../types.js';
import { createScriptedProvider, SCRIPTED_MODEL } from './scriptedProvider.js';

const provider = createScriptedProvider();
const ask = (content: string, extra: Partial<LlmRequest> = {}, onDelta?: (t: string) => void) =>
  provider.complete(
    {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You help.' },
        { role: 'user', content },
      ],
      stream: false,
      ...extra,
    },
    onDelta,
  );
const stable = ({ latencyMs: _l, timeToFirstTokenMs: _t, ...rest }: LlmResponse) => rest;

function expectUsageIdentities(response: LlmResponse): void {
  expect(response.usage).toEqual(completeUsage(response.usage));
  expect(response.usage.cachedTokens).toBeLessThanOrEqual(response.usage.inputTokens);
}

describe('scripted provider', () => {
  it('answers plain text plainly, says it is scripted, and reports itself, not the agent model', async () => {
    const response = await ask('Where is my parcel?');
    expect(response).toMatchObject({
      finishReason: 'stop',
      toolCalls: [],
      provider: 'scripted',
      model: SCRIPTED_MODEL,
      statusCode: 200,
      streamingUsed: false,
    });
    expect(response.text).toMatch(/^\(scripted\) .*"Where is my parcel\?"\.$/);
    expectUsageIdentities(response);
    // ~4 characters per token: the reply's length / 4, rounded up.
    expect(response.usage.completionTokens).toBe(Math.ceil(response.text.length / 4));
  });

  it('is deterministic: the same request gives the same answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), fc.nat(), async (message, seed) => {
        const a = await createScriptedProvider({ seed }).complete({
          model: 'm',
          messages: [{ role: 'user', content: message }],
          stream: false,
        });
        const b = await createScriptedProvider({ seed }).complete({
          model: 'm',
          messages: [{ role: 'user', content: message }],
          stream: false,
        });
        expect(stable(a)).toEqual(stable(b));
        expectUsageIdentities(a);
        for (const call of a.toolCalls) {
          if (call.name === 'present_actions')
            expect(actionSetSchema.safeParse(JSON.parse(call.arguments)).success).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('/tool and the system keywords: one round of tool calls, then an answer from their results', async () => {
    const user: LlmMessage = {
      role: 'user',
      content: 'weather? /tool weather city=Paris /tool clock /buttons Thanks',
    };
    const first = await provider.complete({ model: 'm', messages: [user], stream: false });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.text).toBe('');
    expect(first.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['weather', { city: 'Paris' }],
      ['clock', {}],
      [
        'present_actions',
        { elements: [{ type: 'button', id: 'btn_thanks', label: 'Thanks', value: 'Thanks' }] },
      ],
    ]);
    expect(new Set(first.toolCalls.map((c) => c.id)).size).toBe(3);
    expect(first.usage.completionTokens).toBeGreaterThan(0);

    const [weather, clock, actions] = first.toolCalls;
    const second = await provider.complete({
      model: 'm',
      stream: false,
      messages: [
        user,
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: weather!.id, content: '{"tempC":18}' },
        { role: 'tool', toolCallId: clock!.id, content: '{"error":"unknown_tool"}' },
        { role: 'tool', toolCallId: actions!.id, content: '{"presented":1}' },
      ],
    });
    expect(second.finishReason).toBe('stop');
    expect(second.toolCalls).toEqual([]);
    expect(second.text).toBe(
      '(scripted) weather returned {"tempC":18}. clock returned {"error":"unknown_tool"}. Choose an option.',
    );
    expect(second.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens);
  });

  it('/end calls end_conversation with the outcome; /end escalated and /escalate call escalate', async () => {
    for (const type of ['contained_resolved', 'contained_partial', 'contained_unresolved']) {
      const response = await ask(`/end ${type}`);
      expect(response.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
        ['end_conversation', { outcome: type, reason: 'agent_ended' }],
      ]);
    }
    expect((await ask('/end escalated')).toolCalls.map((c) => c.name)).toEqual(['escalate']);
    expect(JSON.parse((await ask('/escalate wants a human')).toolCalls[0]!.arguments)).toEqual({
      reason: 'wants a human',
    });
    expect((await ask('/end abandoned')).text).toMatch(/Could not read "\/end abandoned"/);
  });

  it('/handoff, /media and the action keywords: calls in command order, one present_actions', async () => {
    const response = await ask(
      '/handoff billing invoices /buttons Yes | No | Yes /media https://x.example/a.pdf the invoice /select Plan: Basic | Pro /input Email',
    );
    expect(response.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['handoff', { agent: 'billing', reason: 'invoices' }],
      [
        'present_actions',
        {
          elements: [
            { type: 'button', id: 'btn_yes', label: 'Yes', value: 'Yes' },
            { type: 'button', id: 'btn_no', label: 'No', value: 'No' },
            { type: 'button', id: 'btn_yes_2', label: 'Yes', value: 'Yes' },
            {
              type: 'select',
              id: 'select_plan',
              label: 'Plan',
              options: [
                { label: 'Basic', value: 'Basic' },
                { label: 'Pro', value: 'Pro' },
              ],
            },
            { type: 'text_input', id: 'input_email', label: 'Email' },
          ],
        },
      ],
      [
        'attach_media',
        { url: 'https://x.example/a.pdf', mimeType: 'application/pdf', caption: 'the invoice' },
      ],
    ]);
  });

  it('after the handoff its result reads as a sentence, for whichever agent answers', async () => {
    const user: LlmMessage = { role: 'user', content: 'invoice /handoff billing' };
    const first = await provider.complete({ model: 'm', messages: [user], stream: false });
    const again = await provider.complete({
      model: 'm',
      stream: false,
      messages: [
        user,
        { role: 'assistant', content: '', toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: first.toolCalls[0]!.id, content: '{"handed_off_to":"billing"}' },
      ],
    });
    expect(again.toolCalls).toEqual([]);
    expect(again.text).toBe('(scripted) Handing you over to billing.');
  });

  it('/error fails like a provider: status, no usage, error code; 429 with a retry hint', async () => {
    expect(await ask('/error')).toMatchObject({
      finishReason: 'error',
      statusCode: 500,
      text: '',
      usage: completeUsage({ inputTokens: 0, completionTokens: 0 }),
      error: { code: 'scripted_error', message: 'Scripted failure: /error 500' },
    });
    expect((await ask('/error 429')).error).toEqual({
      code: 'scripted_error',
      message: 'Scripted failure: /error 429',
      retryAfterSeconds: 1,
    });
    expect((await ask('/error 0')).statusCode).toBe(0);
  });

  it('/length cuts the reply; /reason adds reasoning tokens; /say sets the reply', async () => {
    const long = await ask('/say one two three four five six seven eight nine ten /length');
    expect(long.finishReason).toBe('length');
    expect('(scripted) one two three four five six seven eight nine ten'.startsWith(long.text)).toBe(true);
    const reasoning = await ask('/reason 300 think hard');
    expect(reasoning.usage.reasoningTokens).toBe(300);
    expect(reasoning.usage.outputTokens).toBe(reasoning.usage.completionTokens + 300);
    expectUsageIdentities(reasoning);
  });

  it('streams word by word: the deltas join to the text, first token before the end', async () => {
    let clock = 0;
    const timed = createScriptedProvider({ now: () => clock++ });
    const deltas: string[] = [];
    const response = await timed.complete(
      { model: 'm', messages: [{ role: 'user', content: '/say Hello  there, friend ' }], stream: true },
      (d) => deltas.push(d),
    );
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe(response.text);
    expect(response.streamingUsed).toBe(true);
    expect(response.timeToFirstTokenMs).toBeLessThan(response.latencyMs);
    const silent: string[] = [];
    await ask('no stream', {}, (d) => silent.push(d));
    expect(silent).toEqual([]);
  });

  it('an abort rejects with the signal reason, during a /delay and while streaming', async () => {
    const controller = new AbortController();
    const pending = ask('/delay 5000', { signal: controller.signal });
    controller.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');

    const streaming = new AbortController();
    const deltas: string[] = [];
    await expect(
      ask('/say a b c d e f', { stream: true, signal: streaming.signal }, (d) => {
        deltas.push(d);
        if (deltas.length === 2) streaming.abort(new Error('stop'));
      }),
    ).rejects.toThrow('stop');
    expect(deltas).toHaveLength(2);
  });

  it('counts a long earlier prompt as cached, in 128-token steps from 1024', async () => {
    const history: LlmMessage[] = [{ role: 'system', content: 'x'.repeat(6000) }];
    for (let i = 0; i < 4; i++)
      history.push(
        { role: 'user', content: 'q'.repeat(400) },
        { role: 'assistant', content: 'a'.repeat(400) },
      );
    const response = await provider.complete({
      model: 'm',
      stream: false,
      messages: [...history, { role: 'user', content: 'next' }],
    });
    expect(response.usage.cachedTokens).toBeGreaterThanOrEqual(1024);
    expect(response.usage.cachedTokens % 128).toBe(0);
    expect(response.usage.inputTokens - response.usage.cachedTokens).toBeLessThan(128 + 20);
    expect((await ask('short')).usage.cachedTokens).toBe(0);
  });
});
