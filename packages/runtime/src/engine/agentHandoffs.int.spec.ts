import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventData, ParleyEvent } from '@parley/events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';
import { createQueuedProvider } from '../testing/queuedProvider.js';
import { createTestCipher } from '../testing/testCipher.js';

const model = createQueuedProvider('openai-compatible', 'gpt-4o-mini');
let h: RuntimeHarness;
/** A remote A2A agent: answers message/send with a completed task, records what it got. */
const received: Array<{ authorization?: string; body: Record<string, unknown> }> = [];
let remote: Server;
let remoteUrl: string;
let remoteAnswer = 'Partner here.';

beforeAll(async () => {
  remote = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      const rpc = JSON.parse(body) as { id: string };
      received.push({
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        body: rpc as never,
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: rpc.id,
          result: {
            kind: 'task',
            id: 'task_1',
            contextId: 'ctx',
            status: {
              state: 'completed',
              message: {
                kind: 'message',
                role: 'agent',
                messageId: 'm',
                parts: [{ kind: 'text', text: remoteAnswer }],
              },
            },
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/a2a`;
  h = await createRuntimeHarness({
    providers: [model],
    runtime: { secrets: createTestCipher(), toolFetch: (url, init) => fetch(url, init) },
  });
  await h.agents.create(h.projectId, {
    name: 'triage',
    provider: 'openai-compatible',
    systemPrompt: 'You route.',
    handoffs: {
      targets: ['billing', 'ghost'],
      remote: [
        { name: 'partner', url: remoteUrl, description: 'A partner agent', bearerSecret: 'PARTNER_TOKEN' },
      ],
    },
    secrets: { PARTNER_TOKEN: 'partner-secret' },
  });
  await h.agents.create(h.projectId, {
    name: 'billing',
    provider: 'openai-compatible',
    systemPrompt: 'You bill.',
  });
});
afterAll(async () => {
  remote?.closeAllConnections();
  await new Promise((resolve) => remote?.close(resolve));
  await h?.close();
});
beforeEach(() => {
  model.requests.length = 0;
  received.length = 0;
});

const turn = (message: string, extra: Record<string, unknown> = {}) =>
  h.runtime.runTurn({ projectId: h.projectId, tenantId: h.tenantId, message, ...extra });
const ofType = <T extends ParleyEvent['type']>(events: ParleyEvent[], type: T) =>
  events.flatMap((e) => (e.type === type ? [e.data as EventData<T>] : []));

describe('handoffs', () => {
  it('the handoff tool lists the targets; the target answers this turn and the next', async () => {
    model.queue(
      { toolCalls: [{ name: 'handoff', arguments: { agent: 'billing', reason: 'invoice' } }] },
      { text: 'Billing here.' },
    );
    const first = await turn('my invoice', { agentName: 'triage' });
    const handoffTool = model.requests[0]!.tools!.find((t) => t.name === 'handoff');
    expect(handoffTool?.parameters).toMatchObject({
      properties: { agent: { enum: ['billing', 'ghost', 'partner'] } },
    });
    // The second call is billing's: its prompt, its tools (no handoff: the project has only triage left, not listed by billing).
    expect(model.requests[1]!.messages[0]).toEqual({ role: 'system', content: 'You bill.' });
    expect(first).toMatchObject({ agentName: 'billing', handedOff: { from: 'triage', to: 'billing' } });
    expect(first.reply.text).toBe('Billing here.');
    model.queue({ text: 'Still billing.' });
    const next = await turn('and?', { sessionId: first.sessionId });
    expect(next.agentName).toBe('billing');
    expect(model.requests[2]!.messages[0]).toEqual({ role: 'system', content: 'You bill.' });
    const events = await h.events(first.sessionId);
    expect(ofType(events, 'AgentHandedOff')).toEqual([
      expect.objectContaining({
        fromAgent: 'triage',
        toAgent: 'billing',
        reason: 'invoice',
        target: 'local',
      }),
    ]);
  });

  it('a target that cannot take it (not stored): the tool fails, a failed handoff is traced, triage answers', async () => {
    model.queue(
      { toolCalls: [{ name: 'handoff', arguments: { agent: 'ghost' } }] },
      { text: 'I will help myself.' },
    );
    const result = await turn('help', { agentName: 'triage' });
    expect(result).toMatchObject({ agentName: 'triage', handedOff: null });
    const events = await h.events(result.sessionId);
    expect(ofType(events, 'AgentHandedOff')).toEqual([]);
    const t = ofType(events, 'TraceEventRecorded');
    expect(t.find((x) => x.eventType === 'handoff')).toMatchObject({
      name: 'ghost',
      status: 'error',
      attributes: { code: 'agent_unavailable' },
    });
    expect(t.find((x) => x.eventType === 'tool_result' && x.name === 'handoff')?.status).toBe('error');
  });

  it('remote handoff: the conversation forwarded in message.metadata.history over A2A; the remote agent answers from then on', async () => {
    model.queue({ text: 'Hello, I am triage.' });
    const open = await turn('hi', { agentName: 'triage' });
    model.queue({
      toolCalls: [{ name: 'handoff', arguments: { agent: 'partner', reason: 'partner product' } }],
    });
    remoteAnswer = 'Partner here.';
    const handed = await turn('I bought a partner product', { sessionId: open.sessionId });
    expect(handed).toMatchObject({ agentName: 'partner', handedOff: { to: 'partner', remote: true } });
    expect(handed.reply.text).toBe('Partner here.');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      authorization: 'Bearer partner-secret',
      body: {
        jsonrpc: '2.0',
        method: 'message/send',
        params: {
          message: {
            role: 'user',
            contextId: open.sessionId,
            parts: [{ kind: 'text', text: 'I bought a partner product' }],
            metadata: {
              history: [
                { role: 'user', text: 'hi' },
                { role: 'agent', text: 'Hello, I am triage.' },
              ],
            },
          },
          configuration: { blocking: true },
        },
      },
    });
    remoteAnswer = 'Partner again.';
    const next = await turn('thanks', { sessionId: open.sessionId });
    expect(next).toMatchObject({ agentName: 'partner', llmCalls: 0 });
    expect(next.reply.text).toBe('Partner again.');
    const history = (received[1]!.body as { params: { message: { metadata: { history: unknown[] } } } })
      .params.message.metadata.history;
    expect(history.at(-1)).toEqual({ role: 'agent', text: 'Partner here.' });
    const events = await h.events(open.sessionId);
    expect(ofType(events, 'AgentHandedOff')).toEqual([
      expect.objectContaining({ toAgent: 'partner', target: 'remote', remoteUrl }),
    ]);
    expect(ofType(events, 'AgentReplied').map((r) => r.agentName)).toEqual(['triage', 'partner', 'partner']);
  });
});
