import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completeUsage } from '@parley/events';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  completionJson,
  invalidKeyError,
  rateLimitError,
  serverError,
  streamWithError,
  textStream,
  textStreamText,
  toolCallCompletionJson,
  toolCallStream,
} from '../../testing/recordedOpenAiResponses.js';
import type { LlmRequest } from '../types.js';
import { createOpenAiCompatibleProvider } from './openAiCompatibleProvider.js';

/** A local server standing in for the OpenAI API: each test sets how it answers and reads what it got. */
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;
let handler: Handler;
let received: Array<{ url: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }>;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(body || '{}') });
      void handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received = [];
});

const json =
  (status: number, value: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };
/** Writes the stream in the given pieces, letting each go out before the next. */
const stream =
  (pieces: Array<string | Uint8Array>, end = true): Handler =>
  async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const piece of pieces) {
      res.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    if (end) res.end();
    else res.destroy();
  };

/** No retries unless a test asks: each test sees exactly the answers it set. */
const provider = (maxRetries = 0) =>
  createOpenAiCompatibleProvider({ baseUrl, apiKey: 'sk-test-0123456789abcdef', maxRetries });
const request = (overrides: Partial<LlmRequest> = {}): LlmRequest => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a shop assistant.' },
    { role: 'user', content: 'Where is my order?' },
  ],
  stream: false,
  ...overrides,
});

describe('openai-compatible provider', () => {
  it('non-streamed: posts a chat completion and maps text, usage (cached inside prompt) and model', async () => {
    handler = json(200, completionJson);
    const response = await provider().complete(request());
    expect(received[0]).toMatchObject({
      url: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-test-0123456789abcdef', 'content-type': 'application/json' },
      body: {
        model: 'gpt-4o-mini',
        stream: false,
        messages: [
          { role: 'system', content: 'You are a shop assistant.' },
          { role: 'user', content: 'Where is my order?' },
        ],
      },
    });
    expect(received[0]?.body).not.toHaveProperty('stream_options');
    expect(response).toMatchObject({
      text: 'Your order #4412 shipped yesterday and should arrive on Thursday.',
      toolCalls: [],
      finishReason: 'stop',
      statusCode: 200,
      streamingUsed: false,
      provider: 'openai-compatible',
      model: 'gpt-4o-mini-2024-07-18',
      usage: completeUsage({ inputTokens: 1240, cachedTokens: 1024, completionTokens: 96 }),
    });
    expect(response.timeToFirstTokenMs).toBe(response.latencyMs);
    expect(response.usageEstimated).toBeUndefined();
  });

  it('non-streamed tool call of a reasoning model: reasoning tokens split out of completion_tokens', async () => {
    handler = json(200, toolCallCompletionJson);
    const response = await provider().complete(
      request({
        model: 'o4-mini',
        tools: [
          {
            name: 'get_weather',
            description: 'Weather now',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_1', name: 'get_time', arguments: '{}' }],
          },
          { role: 'tool', toolCallId: 'call_1', content: '{"time":"10:00"}' },
        ],
      }),
    );
    expect(received[0]?.body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather now',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"time":"10:00"}' },
      ],
    });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([
      {
        id: 'call_Dn2RJJSxzDm49vlVTehseJ0k',
        name: 'get_weather',
        arguments: '{"city":"Paris","unit":"celsius"}',
      },
    ]);
    expect(response.usage).toEqual(
      completeUsage({ inputTokens: 310, completionTokens: 82, reasoningTokens: 448 }),
    );
    expect(response.usage.totalTokens).toBe(toolCallCompletionJson.usage.total_tokens);
  });

  it('streamed: asks for usage, forwards text deltas, takes usage from the last chunk', async () => {
    handler = stream([textStream]);
    const deltas: string[] = [];
    const response = await provider().complete(request({ stream: true }), (d) => deltas.push(d));
    expect(received[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deltas).toEqual(['Your', ' order', ' shipped', ' – it arrives Thursday 📦.']);
    expect(response).toMatchObject({
      text: textStreamText,
      finishReason: 'stop',
      streamingUsed: true,
      statusCode: 200,
      model: 'gpt-4o-mini-2024-07-18',
      usage: completeUsage({ inputTokens: 1240, cachedTokens: 1152, completionTokens: 9 }),
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
          handler = stream(points.slice(1).map((end, i) => bytes.subarray(points[i], end)));
          const deltas: string[] = [];
          const response = await provider().complete(request({ stream: true }), (d) => deltas.push(d));
          expect(deltas.join('')).toBe(textStreamText);
          expect(response.text).toBe(textStreamText);
          expect(response.usage.cachedTokens).toBe(1152);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('streamed tool calls: fragments assembled by index', async () => {
    handler = stream([
      toolCallStream.slice(0, 300),
      toolCallStream.slice(300, 301),
      toolCallStream.slice(301),
    ]);
    const deltas: string[] = [];
    const response = await provider().complete(request({ stream: true }), (d) => deltas.push(d));
    expect(deltas).toEqual([]);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([
      { id: 'call_8wPzUJp3', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'call_Q2kLm9Xa', name: 'get_time', arguments: '{"tz": "Europe/Paris"}' },
    ]);
    expect(response.usage).toEqual(completeUsage({ inputTokens: 412, completionTokens: 51 }));
  });

  it('429 with Retry-After: the SDK waits as told and retries; out of retries, a failed answer', async () => {
    const answers = [
      json(429, rateLimitError, { 'retry-after': '1' }),
      json(429, rateLimitError, { 'retry-after': '1' }),
      json(200, completionJson),
    ];
    const at: number[] = [];
    handler = (req, res, body) => {
      at.push(Date.now());
      return answers.shift()!(req, res, body);
    };
    const recovered = await provider(2).complete(request());
    expect(recovered).toMatchObject({
      finishReason: 'stop',
      statusCode: 200,
      text: completionJson.choices[0]!.message.content,
    });
    expect(received).toHaveLength(3);
    expect(received.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    // Retry-After: 1 second between attempts (the SDK's own backoff would be ~0.5 s).
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(900);

    handler = json(429, rateLimitError, { 'retry-after': '2' });
    const response = await provider(0).complete(request({ stream: true }));
    expect(response).toMatchObject({
      finishReason: 'error',
      statusCode: 429,
      text: '',
      usage: completeUsage({ inputTokens: 0, completionTokens: 0 }),
      error: { code: 'http_429', message: rateLimitError.error.message, retryAfterSeconds: 2 },
    });
  });

  it('5xx: retried, then a failed answer with the last status', async () => {
    let calls = 0;
    handler = (req, res, body) => {
      calls += 1;
      return json(calls === 1 ? 503 : 500, serverError, { 'retry-after-ms': '10' })(req, res, body);
    };
    const response = await provider(1).complete(request());
    expect(calls).toBe(2);
    expect(response).toMatchObject({ finishReason: 'error', statusCode: 500, error: { code: 'http_500' } });
  });

  it('500 and 401: failed answers; a key echoed in a message is redacted', async () => {
    handler = json(500, serverError);
    expect(await provider().complete(request())).toMatchObject({
      finishReason: 'error',
      statusCode: 500,
      error: { code: 'http_500', message: serverError.error.message },
    });
    handler = json(401, invalidKeyError);
    const unauthorized = await provider().complete(request());
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.error?.message).toMatch(/^Incorrect API key provided: \[redacted\]\. You can find/);
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway for sk-test-0123456789abcdef</html>');
    };
    const gateway = await provider().complete(request());
    expect(gateway.error).toEqual({ code: 'http_502', message: '<html>Bad gateway for [redacted]</html>' });
  });

  it('an error inside a stream, a stream cut off and a connection refused are failed answers', async () => {
    handler = stream([streamWithError]);
    const inStream = await provider().complete(request({ stream: true }));
    expect(inStream).toMatchObject({
      finishReason: 'error',
      statusCode: 200,
      text: 'Let me',
      error: { code: 'stream_error' },
    });

    handler = stream([textStream.slice(0, 200)], false);
    const cut = await provider().complete(request({ stream: true }));
    expect(cut.finishReason).toBe('error');
    expect(['stream_error', 'incomplete_stream']).toContain(cut.error?.code);

    handler = stream([textStream.slice(0, 200)]);
    const ended = await provider().complete(request({ stream: true }));
    expect(ended.error?.code).toBe('incomplete_stream');

    const refused = await createOpenAiCompatibleProvider({ baseUrl: 'http://127.0.0.1:9/v1' }).complete(
      request(),
    );
    expect(refused).toMatchObject({
      finishReason: 'error',
      statusCode: 0,
      error: { code: 'connection_failed' },
    });
  });

  it('a server that ignores include_usage: usage estimated and flagged', async () => {
    handler = stream([textStream.replace(/data: \{[^\n]*"usage":\{[^\n]*\n\n/, '')]);
    const response = await provider().complete(request({ stream: true }));
    expect(response.text).toBe(textStreamText);
    expect(response.usageEstimated).toBe(true);
    expect(response.usage.inputTokens).toBeGreaterThan(0);
    expect(response.usage).toEqual(completeUsage(response.usage));
  });

  it('times out as a failed answer; the caller aborting rejects', async () => {
    const firstWords = `${textStream.split('\n\n').slice(0, 3).join('\n\n')}\n\n`;
    handler = async (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(firstWords);
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (!req.destroyed) res.end();
    };
    const slow = createOpenAiCompatibleProvider({ baseUrl, timeoutMs: 100 });
    const timedOut = await slow.complete(request({ stream: true }));
    expect(timedOut).toMatchObject({ finishReason: 'error', error: { code: 'timeout' }, text: 'Your order' });

    const controller = new AbortController();
    const pending = provider().complete(request({ stream: true, signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client disconnected')), 50);
    await expect(pending).rejects.toThrow('client disconnected');
  });

  it('no API key: no authorization header (local servers)', async () => {
    handler = json(200, completionJson);
    await createOpenAiCompatibleProvider({ baseUrl: `${baseUrl}/` }).complete(request());
    expect(received[0]?.url).toBe('/v1/chat/completions');
    expect(received[0]?.headers.authorization).toBeUndefined();
  });
});
