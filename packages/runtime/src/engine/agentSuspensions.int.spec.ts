import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventData, ParleyEvent } from '@parley/events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { createSuspensionStore, type SuspensionStore } from '../suspensions/suspensionStore.js';
import { createQueuedProvider } from '../testing/queuedProvider.js';
import { createTestCipher } from '../testing/testCipher.js';
import { SUSPENSION_HEADERS } from '../tools/toolRunner.js';
import { DEFAULT_TIMEOUT_REPLY } from './runtime.js';

const model = createQueuedProvider('openai-compatible', 'gpt-4o-mini');
const cipher = createTestCipher();
let h: RuntimeHarness;
let suspensions: SuspensionStore;
const calls: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
let status = 202;
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      calls.push({ headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{"accepted":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await createRuntimeHarness({
    providers: [model],
    runtime: {
      secrets: cipher,
      toolFetch: (url, init) => fetch(url, init),
      publicBaseUrl: 'https://parley.example',
      suspensionTimeoutSeconds: 3600,
    },
  });
  suspensions = createSuspensionStore(h.db.pool, cipher);
  await h.agents.create(h.projectId, {
    name: 'refunds',
    provider: 'openai-compatible',
    tools: [
      {
        name: 'request_refund',
        implementation: { type: 'http', url: `${origin}/refunds`, retries: 0 },
        suspend: {
          timeoutSeconds: 60,
          timeoutReply: 'The refund desk did not answer.',
          pendingReply: 'Checking with the refund desk.',
        },
      },
    ],
  });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});
beforeEach(() => {
  model.requests.length = 0;
  calls.length = 0;
  status = 202;
});

const ofType = <T extends ParleyEvent['type']>(events: ParleyEvent[], type: T) =>
  events.flatMap((e) => (e.type === type ? [e.data as EventData<T>] : []));
const suspend = async (message: string) => {
  model.queue({
    text: 'Let me ask.',
    toolCalls: [{ name: 'request_refund', arguments: { invoice: 'INV-1' } }],
  });
  return h.runtime.runTurn({
    projectId: h.projectId,
    tenantId: h.tenantId,
    message,
    agentName: 'refunds',
    origin: { kind: 'test', where: 'here' },
  });
};

describe('suspended tools', () => {
  it('the call carries the suspension; the turn records ToolCallSuspended and no reply', async () => {
    const result = await suspend('refund INV-1');
    expect(result.suspended).toMatchObject({
      toolName: 'request_refund',
      suspensionId: expect.stringMatching(/^susp_/),
    });
    expect(result.reply.text).toBe('Checking with the refund desk.');
    const id = result.suspended!.suspensionId;
    expect(calls[0]!.headers[SUSPENSION_HEADERS.id.toLowerCase()]).toBe(id);
    expect(calls[0]!.headers[SUSPENSION_HEADERS.callbackUrl.toLowerCase()]).toBe(
      `https://parley.example/api/v1/suspensions/${id}/callback`,
    );
    const secret = String(calls[0]!.headers[SUSPENSION_HEADERS.secret.toLowerCase()]);
    expect(await suspensions.secret(id)).toBe(secret);
    const events = await h.events(result.sessionId);
    expect(ofType(events, 'AgentReplied')).toEqual([]);
    expect(ofType(events, 'ToolCallSuspended')[0]).toMatchObject({
      suspensionId: id,
      toolName: 'request_refund',
      replyMessageId: result.reply.messageId,
      pending: { assistantText: 'Let me ask.', results: [], llmCalls: 1 },
    });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain(secret);
    expect(await suspensions.get(id)).toMatchObject({
      status: 'pending',
      origin: { kind: 'test', where: 'here' },
    });
  });

  it('resumes with the callback result: the model goes on, the reply takes the reserved id', async () => {
    const result = await suspend('refund INV-2');
    const id = result.suspended!.suspensionId;
    expect((await suspensions.claim(id, 'resumed')).ok).toBe(true);
    model.queue({ text: 'Your refund is approved.' });
    const resumed = await h.runtime.resume({
      suspensionId: id,
      outcome: 'completed',
      result: { approved: true },
    });
    expect(resumed).toMatchObject({ sessionId: result.sessionId, origin: { kind: 'test', where: 'here' } });
    expect(resumed?.result.reply).toMatchObject({
      messageId: result.reply.messageId,
      text: 'Your refund is approved.',
    });
    const last = model.requests.at(-1)!;
    expect(last.messages.slice(-3)).toEqual([
      { role: 'user', content: 'refund INV-2' },
      {
        role: 'assistant',
        content: 'Let me ask.',
        toolCalls: [expect.objectContaining({ name: 'request_refund' })],
      },
      { role: 'tool', content: '{"approved":true}', toolCallId: expect.any(String) },
    ]);
    const events = await h.events(result.sessionId);
    expect(ofType(events, 'ToolCallResumed')).toEqual([
      expect.objectContaining({ suspensionId: id, outcome: 'completed' }),
    ]);
    expect(ofType(events, 'AgentReplied')).toEqual([
      expect.objectContaining({ messageId: result.reply.messageId, inReplyTo: result.userMessageId }),
    ]);
    expect(ofType(events, 'LlmCallRecorded').map((c) => c.sourceSubtype)).toEqual([
      'response_generation',
      'tool_use_iteration',
    ]);
    const toolResult = ofType(events, 'TraceEventRecorded').find((t) => t.eventType === 'tool_result');
    expect(toolResult).toMatchObject({ status: 'ok', attributes: { suspensionId: id } });
    // Claimed once: a second claim is refused and changes nothing.
    expect(await suspensions.claim(id, 'resumed')).toEqual({ ok: false, reason: 'already_resumed' });
  });

  it('a timeout answers the tool timeoutReply without a model call', async () => {
    const result = await suspend('refund INV-3');
    const id = result.suspended!.suspensionId;
    expect(await suspensions.claim(id, 'timed_out')).toEqual({ ok: false, reason: 'expired' });
    await h.db.pool.query(
      `update tool_suspensions set expires_at = now() - interval '1 second' where suspension_id = $1`,
      [id],
    );
    expect(await suspensions.expired(10)).toContain(id);
    expect(await suspensions.claim(id, 'resumed')).toEqual({ ok: false, reason: 'expired' });
    expect((await suspensions.claim(id, 'timed_out')).ok).toBe(true);
    const before = model.requests.length;
    const resumed = await h.runtime.resume({ suspensionId: id, outcome: 'timed_out' });
    expect(model.requests.length).toBe(before);
    expect(resumed?.result.reply).toMatchObject({
      text: 'The refund desk did not answer.',
      isLlmGenerated: false,
    });
    expect(DEFAULT_TIMEOUT_REPLY).not.toBe('The refund desk did not answer.');
  });

  it('a call the external system refuses does not suspend: a failed tool, and the model answers', async () => {
    status = 500;
    model.queue({ text: 'Could not reach the desk.' });
    const result = await suspend('refund INV-4');
    expect(result.suspended).toBeNull();
    expect(result.reply.text).toBe('Could not reach the desk.');
  });
});
