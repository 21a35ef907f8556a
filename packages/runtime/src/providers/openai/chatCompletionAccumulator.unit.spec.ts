import { completeUsage } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChatCompletionAccumulator } from './chatCompletionAccumulator.js';
import { finishReasonFromOpenAi, usageFromOpenAi } from './openAiShapes.js';

/** Splits text into pieces at the given points. */
const pieces = (text: string, cuts: number[]): string[] => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const point of [...points, text.length]) {
    out.push(text.slice(from, point));
    from = point;
  }
  return out;
};
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  object: 'chat.completion.chunk',
  model: 'gpt-4.1-mini-2025-04-14',
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

describe('chat completion accumulator', () => {
  it('any fragmentation of the text and of each tool call arguments gives the same completion', () => {
    const call = fc.record({
      name: fc.constantFrom('get_weather', 'lookup_order'),
      args: fc.json({ maxDepth: 2 }),
      cuts: fc.array(fc.nat(), { maxLength: 6 }),
    });
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.array(call, { maxLength: 3 }),
        (text, textCuts, calls) => {
          const acc = createChatCompletionAccumulator();
          const forwarded: string[] = [];
          const push = (chunk: unknown) => forwarded.push(acc.add(chunk).text);
          push(delta({ role: 'assistant', content: '' }));
          for (const piece of pieces(text, textCuts)) push(delta({ content: piece }));
          calls.forEach((c, index) => {
            push(
              delta({
                tool_calls: [
                  { index, id: `call_${index}`, type: 'function', function: { name: c.name, arguments: '' } },
                ],
              }),
            );
            for (const piece of pieces(c.args, c.cuts))
              push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
          });
          push(delta({}, calls.length > 0 ? 'tool_calls' : 'stop'));
          push({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
          const result = acc.result();
          expect(forwarded.join('')).toBe(text);
          expect(result.text).toBe(text);
          expect(result.toolCalls).toEqual(
            calls.map((c, i) => ({ id: `call_${i}`, name: c.name, arguments: c.args })),
          );
          expect(result.usage).toEqual(completeUsage({ inputTokens: 10, completionTokens: 5 }));
          expect(result.model).toBe('gpt-4.1-mini-2025-04-14');
        },
      ),
    );
  });

  it('interleaved tool call fragments are assembled by index; other choices and non-chunks are ignored', () => {
    const acc = createChatCompletionAccumulator();
    acc.add(delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'two', arguments: '{"y"' } }] }));
    acc.add(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'one', arguments: '{' } }] }));
    acc.add(
      delta({
        tool_calls: [
          { index: 1, function: { arguments: ':2}' } },
          { index: 0, function: { arguments: '}' } },
        ],
      }),
    );
    acc.add({ choices: [{ index: 1, delta: { content: 'other choice' } }] });
    acc.add('not a chunk');
    acc.add(null);
    expect(acc.result()).toMatchObject({
      text: '',
      finishReason: null,
      toolCalls: [
        { id: 'a', name: 'one', arguments: '{}' },
        { id: 'b', name: 'two', arguments: '{"y":2}' },
      ],
    });
  });

  it('an error object in the stream is kept', () => {
    const acc = createChatCompletionAccumulator();
    acc.add({ error: { message: 'overloaded', type: 'server_error' } });
    expect(acc.result().error).toEqual({ code: 'stream_error', message: 'overloaded' });
  });
});

describe('usageFromOpenAi', () => {
  it('keeps the usage identities and OpenAI totals; cached and reasoning tokens are inside the counts, not added', () => {
    fc.assert(
      fc.property(
        fc.nat(1e7),
        fc.nat(1e7),
        fc.nat(1e7),
        fc.nat(1e7),
        (prompt, completion, cached, reasoning) => {
          const usage = usageFromOpenAi({
            prompt_tokens: prompt,
            completion_tokens: completion,
            prompt_tokens_details: { cached_tokens: cached },
            completion_tokens_details: { reasoning_tokens: reasoning },
          });
          expect(usage).toEqual(completeUsage(usage));
          expect(usage.totalTokens).toBe(prompt + completion);
          expect(usage.cachedTokens).toBe(Math.min(cached, prompt));
          expect(usage.reasoningTokens).toBe(Math.min(reasoning, completion));
        },
      ),
    );
    expect(usageFromOpenAi({ prompt_tokens: 7, completion_tokens: 3 })).toEqual(
      completeUsage({ inputTokens: 7, completionTokens: 3 }),
    );
  });

  it('maps finish reasons', () => {
    expect(finishReasonFromOpenAi('stop', false)).toBe('stop');
    expect(finishReasonFromOpenAi('content_filter', false)).toBe('stop');
    expect(finishReasonFromOpenAi('length', true)).toBe('length');
    expect(finishReasonFromOpenAi('tool_calls', true)).toBe('tool_calls');
    expect(finishReasonFromOpenAi('function_call', false)).toBe('tool_calls');
    expect(finishReasonFromOpenAi('stop', true)).toBe('tool_calls');
  });
});
