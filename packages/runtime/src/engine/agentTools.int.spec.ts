import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventData, ParleyEvent } from '@parley/events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { createQueuedProvider } from '../testing/queuedProvider.js';
import { createTestCipher } from '../testing/testCipher.js';
import { FALLBACK_REPLY } from './runtime.js';

/** A tool server: each test sets how it answers; it records what it got. */
type Handler = (req: IncomingMessage, body: string) => Promise<{ status: number; body: string }>;
let handler: Handler;
const hits: Array<{
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}> = [];
let server: Server;
let origin: string;

const model = createQueuedProvider('openai-compatible', 'gpt-4o-mini');
let h: RuntimeHarness;
const SECRET = 'crm-token-7f3a9c1e5b';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      void handler(req, body).then(
        (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(answer.body);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await createRuntimeHarness({
    providers: [model],
    runtime: { secrets: createTestCipher(), toolFetch: (url, init) => fetch(url, init) },
  });
  await h.agents.create(h.projectId, {
    name: 'crm',
    provider: 'openai-compatible',
    tools: [
      {
        name: 'find_customer',
        parameters: { type: 'object', properties: { email: { type: 'string' } } },
        implementation: {
          type: 'http',
          method: 'GET',
          url: `${origin}/customers/{{args.email}}`,
          query: { account: '{{session.messageMetadata.account}}' },
          auth: { type: 'bearer', secret: 'CRM_TOKEN' },
          headers: { 'x-channel': '{{session.channel}}' },
          retries: 1,
          retryBackoffMs: 1,
          maxResponseBytes: 200,
        },
      },
      {
        name: 'open_ticket',
        implementation: { type: 'http', url: `${origin}/tickets`, retries: 0, timeoutMs: 2000 },
      },
    ],
    secrets: { CRM_TOKEN: SECRET },
    contextAccess: { read: ['session.channel', 'message_metadata'] },
    maxIterations: 3,
  });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});
beforeEach(() => {
  hits.length = 0;
  model.requests.length = 0;
});

const turn = (message: string, extra: Record<string, unknown> = {}) =>
  h.runtime.runTurn({ projectId: h.projectId, tenantId: h.tenantId, message, agentName: 'crm', ...extra });
const traces = (events: ParleyEvent[]) =>
  events.flatMap((e) => (e.type === 'TraceEventRecorded' ? [e.data as EventData<'TraceEventRecorded'>] : []));
const calls = (events: ParleyEvent[]) =>
  events.flatMap((e) => (e.type === 'LlmCallRecorded' ? [e.data as EventData<'LlmCallRecorded'>] : []));

describe('http tools', () => {
  it('calls the service with templates and the secret; the result goes back to the model', async () => {
    handler = async () => ({ status: 200, body: JSON.stringify({ id: 'cus_1', name: 'Ada' }) });
    model.queue(
      { toolCalls: [{ name: 'find_customer', arguments: { email: 'ada@example.com' } }] },
      { text: 'Found Ada.' },
    );
    const result = await turn('who am I?', { messageMetadata: { account: 'acme/eu' } });
    expect(result.reply.text).toBe('Found Ada.');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      method: 'GET',
      url: '/customers/ada%40example.com?account=acme%2Feu',
      headers: { authorization: `Bearer ${SECRET}`, 'x-channel': 'api' },
    });
    // The model read the result, and the context the agent may read.
    const second = model.requests[1]!;
    expect(second.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: expect.any(String),
      content: '{"id":"cus_1","name":"Ada"}',
    });
    expect(second.messages[0]?.content).toContain(
      'Context (JSON): {"session.channel":"api","message_metadata":{"account":"acme/eu"}}',
    );
    const events = await h.events(result.sessionId);
    expect(calls(events).map((c) => c.sourceSubtype)).toEqual(['response_generation', 'tool_use_iteration']);
    const toolCall = traces(events).find((t) => t.eventType === 'tool_call');
    expect(toolCall).toMatchObject({
      name: 'find_customer',
      status: 'ok',
      attributes: { kind: 'http', method: 'GET', statusCode: 200, attempts: 1 },
    });
    // The secret is used, never recorded.
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(SECRET);
    const stored = await h.db.pool.query(
      'select secrets_ciphertext::text as c, secret_names from agents where name = $1',
      ['crm'],
    );
    expect(stored.rows[0].secret_names).toEqual(['CRM_TOKEN']);
    expect(String(stored.rows[0].c)).not.toContain(SECRET);
  });

  it('a failing service: retried, then a failed tool_call the model is told about', async () => {
    handler = async () => ({ status: 503, body: '{"error":"down"}' });
    model.queue(
      { toolCalls: [{ name: 'find_customer', arguments: { email: 'x@y.io' } }] },
      { text: 'Sorry.' },
    );
    const result = await turn('who am I?');
    expect(hits).toHaveLength(2);
    const events = await h.events(result.sessionId);
    const t = traces(events);
    expect(t.find((x) => x.eventType === 'tool_call')).toMatchObject({
      status: 'error',
      attributes: { statusCode: 503, attempts: 2 },
    });
    expect(t.find((x) => x.eventType === 'tool_result')).toMatchObject({
      status: 'error',
      attributes: { code: 'http_503' },
    });
    expect(model.requests[1]!.messages.at(-1)?.content).toBe('{"error":"http_503"}');
  });

  it('a response over the size limit fails the call without reading it all', async () => {
    handler = async () => ({ status: 200, body: JSON.stringify({ blob: 'x'.repeat(500) }) });
    model.queue({ toolCalls: [{ name: 'find_customer', arguments: { email: 'x@y.io' } }] }, { text: 'ok' });
    const result = await turn('big');
    const t = traces(await h.events(result.sessionId));
    expect(t.find((x) => x.eventType === 'tool_result')?.attributes?.code).toBe('response_too_large');
  });

  it('runs parallel calls concurrently: each request is held until both have arrived', async () => {
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    handler = async () => {
      if (hits.length === 2) release();
      await Promise.race([
        both,
        new Promise((_, reject) => setTimeout(() => reject(new Error('alone')), 1500)),
      ]);
      return { status: 201, body: '{"ok":true}' };
    };
    model.queue(
      {
        toolCalls: [
          { name: 'open_ticket', arguments: { topic: 'a' } },
          { name: 'open_ticket', arguments: { topic: 'b' } },
        ],
      },
      { text: 'Two tickets.' },
    );
    const result = await turn('two tickets please');
    expect(hits.map((x) => JSON.parse(x.body))).toEqual(
      expect.arrayContaining([{ topic: 'a' }, { topic: 'b' }]),
    );
    const t = traces(await h.events(result.sessionId));
    expect(t.filter((x) => x.eventType === 'tool_call').map((x) => x.status)).toEqual(['ok', 'ok']);
    expect(result.reply.text).toBe('Two tickets.');
  });

  it('stops at the agent maxIterations with the fallback reply and an llm_call_limit error', async () => {
    handler = async () => ({ status: 200, body: '{}' });
    const again = { toolCalls: [{ name: 'open_ticket', arguments: {} }] };
    model.queue(again, again, again);
    const result = await turn('loop');
    expect(result.reply).toMatchObject({ text: FALLBACK_REPLY, usedFallback: true, isLlmGenerated: false });
    const events = await h.events(result.sessionId);
    expect(calls(events)).toHaveLength(3);
    expect(traces(events).find((x) => x.eventType === 'error')).toMatchObject({
      name: 'llm_call_limit',
      attributes: { limit: 3 },
    });
  });

  it('a tool the agent does not offer, and bad arguments: failed calls the model can correct', async () => {
    model.queue(
      {
        toolCalls: [
          { name: 'delete_everything', arguments: {} },
          { name: 'present_actions', arguments: { elements: [{ type: 'button' }] } },
        ],
      },
      { text: 'ok' },
    );
    const result = await turn('hmm');
    const t = traces(await h.events(result.sessionId));
    expect(
      t.filter((x) => x.eventType === 'tool_result').map((x) => [x.name, x.status, x.attributes?.code]),
    ).toEqual([
      ['delete_everything', 'error', 'unknown_tool'],
      ['present_actions', 'error', 'invalid_arguments'],
    ]);
    expect(result.reply.actionSet).toBeUndefined();
  });

  it('offers the system tools and the agent own tools; a switched-off system tool is not offered', async () => {
    model.queue({ text: 'hi' });
    await turn('hello');
    const offered = model.requests[0]!.tools!.map((t) => t.name);
    expect(offered).toEqual(
      expect.arrayContaining([
        'find_customer',
        'open_ticket',
        'escalate',
        'end_conversation',
        'present_actions',
      ]),
    );
    await h.agents.update(h.projectId, 'crm', { systemTools: { escalate: false } });
    model.queue({ text: 'hi' });
    await turn('hello');
    expect(model.requests[1]!.tools!.map((t) => t.name)).not.toContain('escalate');
    await h.agents.update(h.projectId, 'crm', { systemTools: {} });
  });
});
