import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  a2aMigrations,
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_SEND_QUEUE,
  createA2aTaskStore,
  createChannelAdapters,
  type InboundJobData,
  processInboundJob,
  processSendJob,
  RetryableSendError,
  type SendJobData,
} from '@parley/channels';
import type { EventData } from '@parley/events';
import { createAgentStore, createScriptedProvider, type LlmProvider } from '@parley/runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ChannelWorld,
  createChannelWorld,
  PUBLIC_BASE_URL,
} from '../../testing/channels/channelWorld.js';

/**
 * The A2A channel end to end: the JSON-RPC route of the real API app, the inbound pipeline's
 * queue, and the worker's job functions driven one job at a time (`world.drain`, or boss.fetch
 * then the job function), with the a2a adapter delivering into the task store and to a push stand-in.
 */

let world: ChannelWorld;
let projectId: string;
let connectionId: string;
let chatKey: string;
/** The system prompt of every model call, in order. */
const systemPrompts: string[] = [];
const IDENTIFIER = 'support-agent';
const RPC = `/api/v1/a2a/${IDENTIFIER}`;

beforeAll(async () => {
  const scripted = createScriptedProvider();
  const recording: LlmProvider = {
    name: scripted.name,
    complete(req, onDelta) {
      systemPrompts.push(req.messages.find((m) => m.role === 'system')?.content ?? '');
      return scripted.complete(req, onDelta);
    },
  };
  world = await createChannelWorld({
    migrations: [a2aMigrations],
    adapters: (pool) => createChannelAdapters({ pool }),
    providers: [recording],
    app: ({ db, auth, connections, pipeline }) => ({
      a2a: {
        verifyApiKey: (key) => auth.verifyApiKey(key),
        connections,
        rpc: {
          tasks: createA2aTaskStore(db.pool),
          deliver: (connection, messages) => pipeline.deliver(connection, messages),
          blockingTimeoutMs: 10_000,
        },
        agents: createAgentStore(db.pool),
        publicBaseUrl: PUBLIC_BASE_URL,
      },
    }),
  });
  const { auth, connections } = world;
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'a2a' })).id;
  chatKey = (await auth.createApiKey({ projectId, name: 'a2a', scopes: ['chat.write'] })).key;
  await createAgentStore(world.db.pool).create(projectId, {
    name: 'tiered',
    description: 'Answers support questions by customer tier',
    provider: 'scripted',
    systemPrompt: 'Customer tier: {{message_metadata.tier}}; order {{session.messageMetadata.order.id}}.',
    tools: [{ name: 'lookup_order', description: 'Order status', parameters: { type: 'object' } }],
  });
  connectionId = (
    await connections.create(projectId, {
      channelType: 'a2a',
      externalIdentifier: IDENTIFIER,
      agentName: 'tiered',
      credentials: {},
      settings: { allowHttpPushUrls: true },
    })
  ).id;
}, 60_000);

afterAll(async () => {
  await world?.close();
});

beforeEach(() => {
  systemPrompts.length = 0;
});

let seq = 0;
const nextId = (prefix: string) => `${prefix}-${++seq}-${randomBytes(3).toString('hex')}`;

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on.
type Loose = any;
interface RpcAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Loose;
  error?: { code: number; message: string; data?: Loose };
}

/** A client's push notification endpoint: records each request and answers `status()`. */
async function startPushReceiver(status: () => number) {
  const requests: { path: string; headers: IncomingHttpHeaders; body: unknown }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
      });
      res.writeHead(status(), { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function rpc(
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'x-api-key': chatKey },
): Promise<RpcAnswer> {
  const response = await world.app.inject({
    method: 'POST',
    url: RPC,
    headers,
    payload: { jsonrpc: '2.0', id: nextId('req'), method, params },
  });
  expect(response.statusCode).toBe(200);
  return response.json() as RpcAnswer;
}

const send = (text: string, extra: Record<string, unknown> = {}, configuration?: Record<string, unknown>) =>
  rpc('message/send', {
    message: {
      kind: 'message',
      role: 'user',
      messageId: nextId('msg'),
      parts: [{ kind: 'text', text }],
      ...extra,
    },
    ...(configuration === undefined ? {} : { configuration }),
  });

async function receivedEvents(sessionId: string): Promise<EventData<'MessageReceived'>[]> {
  return (await world.events(sessionId))
    .filter((e) => e.type === 'MessageReceived')
    .map((e) => e.data as EventData<'MessageReceived'>);
}

async function sessionOfContext(contextId: string): Promise<string> {
  return (await world.sessionOf(connectionId, contextId)) ?? '';
}

async function queuedFor(messageId: string): Promise<number> {
  const { rows } = await world.db.pool.query<{ n: number }>(
    `select count(*)::int as n from pgboss.job where name = $1 and data->'message'->>'externalMessageId' = $2`,
    [CHANNEL_INBOUND_QUEUE, messageId],
  );
  return rows[0]?.n ?? 0;
}

describe('the agent card', () => {
  it('describes the endpoint, its API key header and the bound agent as a skill', async () => {
    const response = await world.app.inject({ method: 'GET', url: `${RPC}/.well-known/agent-card.json` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      protocolVersion: '0.3.0',
      name: 'tiered',
      description: 'Answers support questions by customer tier',
      url: `https://parley.example${RPC}`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: false, pushNotifications: true },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      security: [{ apiKey: [] }],
      defaultInputModes: ['text/plain', 'application/json'],
      skills: [{ id: 'tiered', name: 'tiered', tags: ['conversation', 'lookup_order'] }],
    });
  });

  it('is in the OpenAPI document with the JSON-RPC route', async () => {
    const doc = (await world.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Loose;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/a2a/{identifier}',
        '/api/v1/a2a/{identifier}/.well-known/agent-card.json',
      ]),
    );
  });

  it('is 404 for an unknown endpoint', async () => {
    const response = await world.app.inject({
      method: 'GET',
      url: '/api/v1/a2a/nobody/.well-known/agent-card.json',
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'A2A_ENDPOINT_NOT_FOUND' } });
  });
});

describe('authentication', () => {
  const call = (headers: Record<string, string>, url = RPC) =>
    world.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } },
    });

  it('refuses a missing or unknown key with 401, other credential types with 403', async () => {
    expect((await call({})).statusCode).toBe(401);
    expect((await call({ 'x-api-key': `plat_${'x'.repeat(40)}` })).statusCode).toBe(401);
    const publicKey = await call({ 'x-public-key': 'pk_live_abc' });
    expect(publicKey.statusCode).toBe(403);
    expect(publicKey.json()).toMatchObject({ error: { code: 'PLATFORM_API_KEY_REQUIRED' } });
  });

  it('refuses a key without chat.write (403) and a key of another project (404)', async () => {
    const { key: readOnly } = await world.auth.createApiKey({
      projectId,
      name: 'ro',
      scopes: ['channels.read'],
    });
    const refused = await call({ 'x-api-key': readOnly });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: 'PERMISSION_REQUIRED' } });

    const tenant = await world.auth.createTenant({ name: 'Other' });
    const other = (await world.auth.createProject({ tenantId: tenant.id, slug: 'other' })).id;
    const { key: otherKey } = await world.auth.createApiKey({
      projectId: other,
      name: 'x',
      scopes: ['chat.write'],
    });
    const hidden = await call({ 'x-api-key': otherKey });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toMatchObject({ error: { code: 'A2A_ENDPOINT_NOT_FOUND' } });
    expect((await call({ 'x-api-key': chatKey }, '/api/v1/a2a/nobody')).statusCode).toBe(404);
  });

  it('takes the key as a Bearer token too', async () => {
    const answer = (await call({ authorization: `Bearer ${chatKey}` })).json() as RpcAnswer;
    expect(answer.error?.code).toBe(-32001);
  });
});

describe('JSON-RPC errors', () => {
  it('answers -32700 for a body that is not JSON, -32600 and -32601 for bad requests', async () => {
    const malformed = await world.app.inject({
      method: 'POST',
      url: RPC,
      headers: { 'x-api-key': chatKey, 'content-type': 'application/json' },
      payload: '{"jsonrpc": "2.0", "id": 1,',
    });
    expect(malformed.statusCode).toBe(200);
    expect(malformed.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Invalid JSON payload' },
    });
    const batch = await world.app.inject({
      method: 'POST',
      url: RPC,
      headers: { 'x-api-key': chatKey },
      payload: [],
    });
    expect((batch.json() as RpcAnswer).error?.code).toBe(-32600);
    expect((await rpc('tasks/list', {})).error?.code).toBe(-32601);
    const text = await world.app.inject({
      method: 'POST',
      url: RPC,
      headers: { 'x-api-key': chatKey, 'content-type': 'text/plain' },
      payload: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
    });
    expect((text.json() as RpcAnswer).error?.code).toBe(-32600);
    const binary = await world.app.inject({
      method: 'POST',
      url: RPC,
      headers: { 'x-api-key': chatKey, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('{}'),
    });
    expect(binary.statusCode).toBe(415);
    expect((await rpc('tasks/get', { id: '00000000-0000-8000-8000-000000000000' })).error?.code).toBe(-32001);
  });
});

describe('message/send', () => {
  it('queues the message as a submitted task; the worker answers it; tasks/get shows the reply', async () => {
    const answer = await send('/say Which plan? /buttons Basic, Pro');
    expect(answer.error).toBeUndefined();
    const task = answer.result ?? {};
    expect(task).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(typeof task.contextId).toBe('string');
    expect(task.history).toHaveLength(1);
    expect(task.history[0]).toMatchObject({ role: 'user', taskId: task.id, contextId: task.contextId });

    await world.drain();
    const done = (await rpc('tasks/get', { id: task.id })).result ?? {};
    expect(done.status.state).toBe('completed');
    const reply = done.status.message;
    expect(reply).toMatchObject({
      kind: 'message',
      role: 'agent',
      taskId: task.id,
      contextId: task.contextId,
    });
    expect(reply.parts[0]).toMatchObject({ kind: 'text' });
    expect(reply.parts[0].text).toContain('Which plan?');
    expect(reply.parts[1]).toMatchObject({ kind: 'data', metadata: { type: 'ACTION_SET' } });
    expect(reply.parts[1].data.actionSet.elements.length).toBeGreaterThan(0);
    expect(done.history.map((m: { role: string }) => m.role)).toEqual(['user', 'agent']);
    expect(done.artifacts).toEqual([{ artifactId: reply.messageId, name: 'reply', parts: reply.parts }]);
    expect((await rpc('tasks/get', { id: task.id, historyLength: 1 })).result?.history).toHaveLength(1);
  });

  it('gives messageMetadata to this turn’s prompt only, and keeps history out of it', async () => {
    const history = [
      { kind: 'message', role: 'user', messageId: 'remote-1', parts: [{ kind: 'text', text: 'hi' }] },
    ];
    const first = await send('hello', {
      metadata: { messageMetadata: { tier: 'gold', order: { id: 'A-1' } }, history },
    });
    const contextId = String(first.result?.contextId);
    await world.drain();
    await send('and again', { contextId });
    await world.drain();
    expect(systemPrompts).toEqual(['Customer tier: gold; order A-1.', 'Customer tier: ; order .']);

    const received = await receivedEvents(await sessionOfContext(contextId));
    expect(received.map((m) => m.messageMetadata)).toEqual([
      { tier: 'gold', order: { id: 'A-1' } },
      undefined,
    ]);
    expect(received[0]?.channelMetadata).toMatchObject({ contextId, history });
    expect(received[1]?.channelMetadata).not.toHaveProperty('history');
  });

  it('refuses invalid messageMetadata with -32602 and queues nothing', async () => {
    for (const messageMetadata of [{ blob: 'x'.repeat(9000) }, ['not', 'an', 'object'], 'gold']) {
      const messageId = nextId('bad');
      const answer = await rpc('message/send', {
        message: {
          role: 'user',
          messageId,
          parts: [{ kind: 'text', text: 'hi' }],
          metadata: { messageMetadata },
        },
      });
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.data.issues[0].path).toMatch(/^message\.metadata\.messageMetadata/);
      expect(await queuedFor(messageId)).toBe(0);
      const rows = await world.db.pool.query('select 1 from a2a_tasks where message_id = $1', [messageId]);
      expect(rows.rowCount).toBe(0);
    }
    const history = await send('hi', { metadata: { history: { not: 'an array' } } });
    expect(history.error?.code).toBe(-32602);
    expect((await send('nul \u0000 here')).error?.code).toBe(-32602);
  });

  it('answers text PostgreSQL cannot store with -32602 naming the field, never a 500', async () => {
    const surrogate = await send('half an emoji \ud83d');
    expect(surrogate.error).toMatchObject({
      code: -32602,
      message:
        'params.message.parts.0.text: contains text that cannot be stored (U+0000 or an unpaired surrogate)',
    });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const answer = await rpc(method, { id: 'task\u0000' });
      expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^params\.id: /) });
    }
    const path = await world.app.inject({
      method: 'POST',
      url: '/api/v1/a2a/ep%00',
      headers: { 'x-api-key': chatKey },
      payload: { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } },
    });
    expect(path.statusCode).toBe(404);
    expect(path.json().error.code).toBe('A2A_ENDPOINT_NOT_FOUND');
    const card = await world.app.inject('/api/v1/a2a/ep%00/.well-known/agent-card.json');
    expect(card.statusCode).toBe(400);
    expect(card.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^params\.identifier: /),
    });
  });

  it('answers a repeated messageId with the same task and runs one turn', async () => {
    const messageId = nextId('dup');
    const params = { message: { role: 'user', messageId, parts: [{ kind: 'text', text: 'once' }] } };
    const [a, b] = await Promise.all([rpc('message/send', params), rpc('message/send', params)]);
    const again = await rpc('message/send', params);
    expect(a.result?.id).toBeDefined();
    expect(b.result?.id).toBe(a.result?.id);
    expect(again.result?.id).toBe(a.result?.id);
    expect(again.result?.contextId).toBe(a.result?.contextId);
    expect(await queuedFor(messageId)).toBe(1);
    const before = world.turns;
    await world.drain();
    expect(world.turns - before).toBe(1);
  });

  it('refuses continuing another task (-32004) and an unknown one (-32001)', async () => {
    const first = await send('first');
    await world.drain();
    const follow = await send('follow-up', { taskId: first.result?.id });
    expect(follow.error).toMatchObject({ code: -32004, data: { state: 'completed' } });
    const unknown = await send('x', { taskId: '00000000-0000-8000-8000-000000000000' });
    expect(unknown.error?.code).toBe(-32001);
  });

  it('waits for the answer with configuration.blocking', async () => {
    const pending = send('blocking please', {}, { blocking: true });
    // The worker picks the job up while the request waits: once it is queued.
    await vi.waitFor(
      async () => {
        const { rows } = await world.db.pool.query(
          `select 1 from pgboss.job where name = $1 and state = 'created' and data::text like '%blocking please%'`,
          [CHANNEL_INBOUND_QUEUE],
        );
        expect(rows).toHaveLength(1);
      },
      { timeout: 10_000, interval: 20 },
    );
    await world.drain();
    const answer = await pending;
    expect(answer.result?.status.state).toBe('completed');
    expect(answer.result?.status.message.parts[0].text).toContain('(scripted)');
  });

  it('fails the task when its turn cannot run', async () => {
    const unbound = await world.connections.create(projectId, {
      channelType: 'a2a',
      externalIdentifier: 'unbound-agent',
      agentName: 'no-such-agent',
      credentials: {},
    });
    const call = (method: string, params: unknown) =>
      world.app
        .inject({
          method: 'POST',
          url: '/api/v1/a2a/unbound-agent',
          headers: { 'x-api-key': chatKey },
          payload: { jsonrpc: '2.0', id: 1, method, params },
        })
        .then((r) => r.json() as RpcAnswer);
    const sent = await call('message/send', {
      message: { role: 'user', messageId: nextId('m'), parts: [{ kind: 'text', text: 'hi' }] },
    });
    await world.drain();
    expect((await call('tasks/get', { id: sent.result?.id })).result?.status.state).toBe('failed');
    // Another endpoint's task is not found here, even in the same project.
    expect((await rpc('tasks/get', { id: sent.result?.id })).error?.code).toBe(-32001);
    await world.connections.update(projectId, unbound.id, { active: false });
    const inactive = await call('message/send', {
      message: { role: 'user', messageId: nextId('m'), parts: [{ kind: 'text', text: 'hi' }] },
    });
    expect(inactive.error).toMatchObject({ code: -32004, data: { reason: 'connection_inactive' } });
  });
});

describe('tasks/cancel', () => {
  it('cancels a submitted task, whose turn then never runs; a finished task is not cancelable', async () => {
    const sent = await send('cancel me');
    const canceled = await rpc('tasks/cancel', { id: sent.result?.id });
    expect(canceled.result?.status.state).toBe('canceled');
    const before = world.turns;
    await world.drain();
    expect(world.turns).toBe(before);
    expect((await rpc('tasks/get', { id: sent.result?.id })).result?.status.state).toBe('canceled');

    const again = await rpc('tasks/cancel', { id: sent.result?.id });
    expect(again.error).toMatchObject({ code: -32002, data: { state: 'canceled' } });
    const done = await send('done');
    await world.drain();
    expect((await rpc('tasks/cancel', { id: done.result?.id })).error?.code).toBe(-32002);
    expect((await rpc('tasks/cancel', { id: 'nope' })).error?.code).toBe(-32001);
  });
});

describe('push notifications', () => {
  it('POSTs the completed task with the client’s token, retrying a 5xx', async () => {
    let status = 503;
    const client = await startPushReceiver(() => status);
    try {
      const sent = await send(
        'push it',
        {},
        { pushNotificationConfig: { url: `${client.baseUrl}/a2a/hook`, token: 'client-token-1' } },
      );
      const taskId = String(sent.result?.id);
      const [inbound] = await world.boss.fetch<InboundJobData>(CHANNEL_INBOUND_QUEUE);
      if (inbound === undefined) throw new Error('no inbound job');
      await processInboundJob(world.deps, world.boss, inbound.data);
      await world.boss.complete(CHANNEL_INBOUND_QUEUE, inbound.id);
      // The turn ran; the reply is not delivered yet.
      expect((await rpc('tasks/get', { id: taskId })).result?.status.state).toBe('working');
      const [job] = await world.boss.fetch<SendJobData>(CHANNEL_SEND_QUEUE);
      if (job === undefined) throw new Error('no send job');

      await expect(
        processSendJob(world.deps, job.data, { retryCount: 0, retryLimit: 3 }),
      ).rejects.toBeInstanceOf(RetryableSendError);
      // The task is answered whatever the push does.
      expect((await rpc('tasks/get', { id: taskId })).result?.status.state).toBe('completed');
      status = 200;
      expect(await processSendJob(world.deps, job.data, { retryCount: 1, retryLimit: 3 })).toBe('sent');
      await world.boss.complete(CHANNEL_SEND_QUEUE, job.id);

      expect(client.requests).toHaveLength(2);
      const delivered = client.requests[1];
      expect(delivered?.path).toBe('/a2a/hook');
      expect(delivered?.headers['x-a2a-notification-token']).toBe('client-token-1');
      expect(delivered?.body).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });
      // Delivered: the client's token is not kept.
      const { rows } = await world.db.pool.query(
        'select push_config, pushed_at from a2a_tasks where id = $1',
        [taskId],
      );
      expect(rows[0]).toMatchObject({ push_config: null });
      expect(rows[0]?.pushed_at).not.toBeNull();
    } finally {
      await client.close();
    }
  });

  it('refuses a plain-http push URL unless the connection allows it', async () => {
    await world.connections.create(projectId, {
      channelType: 'a2a',
      externalIdentifier: 'strict-push',
      agentName: 'tiered',
      credentials: {},
    });
    const response = await world.app.inject({
      method: 'POST',
      url: '/api/v1/a2a/strict-push',
      headers: { 'x-api-key': chatKey },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { role: 'user', messageId: nextId('m'), parts: [{ kind: 'text', text: 'hi' }] },
          configuration: { pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
        },
      },
    });
    expect((response.json() as RpcAnswer).error?.code).toBe(-32602);
  });
});
