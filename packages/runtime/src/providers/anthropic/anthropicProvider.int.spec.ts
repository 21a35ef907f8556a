import { completeUsage } from '@parley/events';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  invalidKeyError,
  messageJson,
  overloadedError,
  rateLimitError,
  streamWithError,
  textStream,
  textStreamText,
  toolUseJson,
  toolUseStream,
} from '../../testing/recordedAnthropicResponses.js';
import {
  jsonAnswer,
  sseAnswer,
  startVendorStandIn,
  type VendorStandIn,
} from '../../testing/vendorStandIn.js';
import type { LlmRequest } from '../types.js';
import { createAnthropicProvider } from './anthropicProvider.js';

let api: VendorStandIn;
beforeAll(async () => {
  api = await startVendorStandIn();
});
afterAll(() => api?.close());

const KEY = 'sk-ant-api03-test0123456789abcdef';
const provider = (maxRetries = 0, timeoutMs?: number) =>
  createAnthropicProvider({
    apiKey: KEY,
    baseUrl: api.origin,
    maxRetries,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
const request = (overrides: Partial<LlmRequest> = {}): LlmRequest => ({
  model: 'claude-sonnet-4-20250514',
  messages: [
    { role: 'system', content: 'You are a shop assistant.' },
    { role: 'user', content: 'Where is my order?' },
  ],
  stream: false,
  ...overrides,
});
const last = () => api.requests.at(-1)!;

describe('anthropic provider', () => {
  it('non-streamed: system apart, key in x-api-key, usage with cache reads inside inputTokens', async () => {
    api.queue(jsonAnswer(200, messageJson));
    const response = await provider().complete(request());
    expect(last()).toMatchObject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: {
        model: 'claude-sonnet-4-20250514',
        max_tokens: 4096,
        system: 'You are a shop assistant.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Where is my order?' }] }],
      },
    });
    expect(last().headers.authorization).toBeUndefined();
    expect(response).toMatchObject({
      text: messageJson.content[0]!.text,
      toolCalls: [],
      finishReason: 'stop',
      statusCode: 200,
      streamingUsed: false,
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
      usage: completeUsage({ inputTokens: 216 + 1024, cachedTokens: 1024, completionTokens: 19 }),
    });
  });

  it('tool round trip: tool_use blocks out, tool results back as one user message of tool_result blocks', async () => {
    api.queue(jsonAnswer(200, toolUseJson));
    const response = await provider().complete(
      request({
        tools: [
          { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: {} } },
        ],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: 'Checking.',
            toolCalls: [
              { id: 'toolu_1', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
              { id: 'toolu_2', name: 'get_date', arguments: 'not json' },
            ],
          },
          { role: 'tool', toolCallId: 'toolu_1', content: '{"time":"10:00"}' },
          { role: 'tool', toolCallId: 'toolu_2', content: '{"date":"Mon"}' },
        ],
      }),
    );
    expect(last().body).toMatchObject({
      tools: [
        { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: {} } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_time', input: { timezone: 'Europe/Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_date', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"time":"10:00"}' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '{"date":"Mon"}' },
          ],
        },
      ],
    });
    expect(last().body).not.toHaveProperty('system');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.text).toBe("I'll check the weather and the local time in Paris.");
    expect(response.toolCalls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        name: 'get_weather',
        arguments: '{"location":"Paris, France","unit":"celsius"}',
      },
      { id: 'toolu_01BcD3fH9jKq7sT2vWx4yZ8m', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
    ]);
    expect(response.usage).toEqual(completeUsage({ inputTokens: 472, completionTokens: 112 }));
  });

  it('streamed: text deltas forwarded, usage from message_start and the cumulative message_delta', async () => {
    api.queue(sseAnswer([textStream]));
    const deltas: string[] = [];
    const response = await provider().complete(request({ stream: true }), (d) => deltas.push(d));
    expect(last().body).toMatchObject({ stream: true });
    expect(deltas).toEqual(['Your', ' order shipped', ' – it arrives Thursday 📦.']);
    expect(response).toMatchObject({
      text: textStreamText,
      finishReason: 'stop',
      streamingUsed: true,
      statusCode: 200,
      usage: completeUsage({ inputTokens: 25 + 1152, cachedTokens: 1152, completionTokens: 15 }),
    });
    expect(response.timeToFirstTokenMs).toBeLessThanOrEqual(response.latencyMs);
  });

  it('streamed: any chunking on the wire gives the same answer', async () => {
    const bytes = new TextEncoder().encode(textStream);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          api.queue(sseAnswer(points.slice(1).map((end, i) => bytes.subarray(points[i], end))));
          const deltas: string[] = [];
          const response = await provider().complete(request({ stream: true }), (d) => deltas.push(d));
          expect(deltas.join('')).toBe(textStreamText);
          expect(response.usage.cachedTokens).toBe(1152);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('streamed tool use: input_json_delta fragments assembled per block', async () => {
    api.queue(sseAnswer([toolUseStream.slice(0, 700), toolUseStream.slice(700)]));
    const deltas: string[] = [];
    const response = await provider().complete(request({ stream: true }), (d) => deltas.push(d));
    expect(deltas.join('')).toBe('Okay, let me check the weather for Paris:');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([
      {
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        arguments: '{"location": "Paris, France"}',
      },
      { id: 'toolu_01Jq3nWmT7hQ4tNTrLk2xS9b', name: 'get_time', arguments: '{"timezone": "Europe/Paris"}' },
    ]);
    expect(response.usage).toEqual(completeUsage({ inputTokens: 472, completionTokens: 89 }));
  });

  it('429 with retry-after: retried after the wait; out of retries, a failed answer with the hint', async () => {
    const at: number[] = [];
    const stamp =
      (answer: ReturnType<typeof jsonAnswer>): ReturnType<typeof jsonAnswer> =>
      (req, res, r) => {
        at.push(Date.now());
        return answer(req, res, r);
      };
    api.queue(
      stamp(jsonAnswer(429, rateLimitError, { 'retry-after': '1' })),
      stamp(jsonAnswer(200, messageJson)),
    );
    const recovered = await provider(2).complete(request());
    expect(recovered.finishReason).toBe('stop');
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(900);

    api.queue(jsonAnswer(429, rateLimitError, { 'retry-after': '7' }));
    expect(await provider(0).complete(request({ stream: true }))).toMatchObject({
      finishReason: 'error',
      statusCode: 429,
      error: { code: 'http_429', message: rateLimitError.error.message, retryAfterSeconds: 7 },
    });
  });

  it('5xx (529 overloaded) and 401: failed answers with the vendor message, the key never echoed', async () => {
    api.queue(jsonAnswer(529, overloadedError), jsonAnswer(529, overloadedError));
    expect(await provider(1).complete(request())).toMatchObject({
      finishReason: 'error',
      statusCode: 529,
      error: { code: 'http_529', message: 'Overloaded' },
    });
    api.queue(
      jsonAnswer(401, {
        ...invalidKeyError,
        error: { ...invalidKeyError.error, message: `invalid x-api-key ${KEY}` },
      }),
    );
    const unauthorized = await provider().complete(request());
    expect(unauthorized).toMatchObject({
      statusCode: 401,
      error: { code: 'http_401', message: 'invalid x-api-key [redacted]' },
    });
  });

  it('an error event inside a stream, a stream cut short, a refused connection: failed answers', async () => {
    api.queue(sseAnswer([streamWithError]));
    expect(await provider().complete(request({ stream: true }))).toMatchObject({
      finishReason: 'error',
      statusCode: 200,
      text: 'Your',
      error: { code: 'stream_error', message: 'Overloaded' },
    });
    api.queue(sseAnswer([textStream.slice(0, 600)]));
    const cut = await provider().complete(request({ stream: true }));
    expect(cut).toMatchObject({ finishReason: 'error', error: { code: 'incomplete_stream' } });
    const refused = await createAnthropicProvider({
      apiKey: KEY,
      baseUrl: 'http://127.0.0.1:9',
      maxRetries: 0,
    }).complete(request());
    expect(refused).toMatchObject({
      finishReason: 'error',
      statusCode: 0,
      error: { code: 'connection_failed' },
    });
  });

  it('times out as a failed answer keeping the text so far; the caller aborting rejects', async () => {
    const slow = sseAnswer([textStream.slice(0, textStream.indexOf('event: content_block_delta', 400))], {
      pauseMs: 600,
    });
    api.queue(slow);
    const timedOut = await provider(0, 150).complete(request({ stream: true }));
    expect(timedOut).toMatchObject({ finishReason: 'error', error: { code: 'timeout' } });

    api.queue(sseAnswer([textStream.slice(0, 400)], { pauseMs: 600 }));
    const controller = new AbortController();
    const pending = provider().complete(request({ stream: true, signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client disconnected')), 50);
    await expect(pending).rejects.toThrow('client disconnected');
  });
});
