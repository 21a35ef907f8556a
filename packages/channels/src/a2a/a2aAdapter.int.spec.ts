import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, parseCallbackAllowlist } from '../httpAsync/index.js';
import { channelInboundMigrations } from '../inbound/migrations.js';
import {
  type RecordedRequest,
  type StandInReply,
  startStandIn,
  testConnection,
} from '../testing/standInServer.js';
import type { OutgoingMessage } from '../types.js';
import { A2A_NOTIFICATION_TOKEN_HEADER, type A2aAdapter, createA2aAdapter } from './a2aAdapter.js';
import { a2aMigrations } from './a2aMigrations.js';
import type { A2aPushConfig } from './a2aParams.js';

/** The a2a adapter's delivery: the task store (real PostgreSQL) and push notifications to a stand-in client. */

let db: TestDatabase;
let adapter: A2aAdapter;
let client: Awaited<ReturnType<typeof startStandIn>>;
let answer: (request: RecordedRequest) => StandInReply = () => ({ status: 200, body: {} });
const connection = { ...testConnection('a2a', 'ep-1', {}), settings: { allowHttpPushUrls: true } };
const http = { fetch: globalThis.fetch };

beforeAll(async () => {
  db = await createTestDatabase([channelInboundMigrations, a2aMigrations]);
  adapter = createA2aAdapter({ pool: db.pool, pushTimeoutMs: 2_000 });
  client = await startStandIn((request) => answer(request));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await db?.close();
});

let seq = 0;
async function newTask(push?: A2aPushConfig) {
  seq += 1;
  const messageId = `m-${seq}`;
  const { task } = await adapter.tasks.create({
    connectionId: connection.id,
    messageId,
    contextId: `ctx-${seq}`,
    requestMessage: { kind: 'message', role: 'user', messageId, parts: [{ kind: 'text', text: 'hi' }] },
    ...(push === undefined ? {} : { push }),
  });
  const reply: OutgoingMessage = {
    externalSessionKey: task.contextId,
    reply: { text: 'hello there' },
    metadata: { taskId: task.id, contextId: task.contextId },
    messageId: `reply-${seq}`,
  };
  return { task, reply };
}

describe('the a2a adapter', () => {
  it('moves the task to working when the turn starts, and completes it with the reply', async () => {
    const { task, reply } = await newTask();
    await adapter.sendTypingIndicator?.(connection, task.contextId, reply.metadata, http);
    expect((await adapter.tasks.get(connection.id, task.id))?.state).toBe('working');
    expect(await adapter.sendResponse(reply, connection, http)).toEqual({
      ok: true,
      externalMessageId: task.id,
    });
    const done = await adapter.tasks.get(connection.id, task.id);
    expect(done).toMatchObject({
      state: 'completed',
      replyMessage: { role: 'agent', messageId: 'reply-1', parts: [{ kind: 'text', text: 'hello there' }] },
    });
    // A send job run again changes nothing.
    await adapter.sendResponse({ ...reply, reply: { text: 'other' } }, connection, http);
    expect((await adapter.tasks.get(connection.id, task.id))?.replyMessage).toEqual(done?.replyMessage);
  });

  it('pushes once, with the notification token and a bearer credential when the client gave them', async () => {
    const before = client.requests.length;
    answer = () => ({ status: 202, body: {} });
    const { task, reply } = await newTask({
      url: `${client.baseUrl}/hook`,
      token: 'tok-1',
      authentication: { schemes: ['Bearer'], credentials: 'cred-1' },
    });
    expect((await adapter.sendResponse(reply, connection, http)).ok).toBe(true);
    await adapter.sendResponse(reply, connection, http);
    const sent = client.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers[A2A_NOTIFICATION_TOKEN_HEADER.toLowerCase()]).toBe('tok-1');
    expect(sent[0]?.headers.authorization).toBe('Bearer cred-1');
    expect(sent[0]?.body).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    expect((await adapter.tasks.get(connection.id, task.id))?.push).toBeNull();
  });

  it('retries 5xx and network failures, not other 4xx; errors never carry the URL or token', async () => {
    answer = () => ({ status: 503, body: {} });
    const server = await newTask({ url: `${client.baseUrl}/hook?secret=s1`, token: 'tok-2' });
    const failed = await adapter.sendResponse(server.reply, connection, http);
    expect(failed).toMatchObject({ ok: false, retryable: true, status: 503 });

    answer = () => ({ status: 410, body: {} });
    const gone = await newTask({ url: `${client.baseUrl}/hook`, token: 'tok-2' });
    expect(await adapter.sendResponse(gone.reply, connection, http)).toMatchObject({
      ok: false,
      retryable: false,
    });

    const unreachable = await newTask({ url: 'http://127.0.0.1:1/hook?secret=s1', token: 'tok-2' });
    const network = await adapter.sendResponse(unreachable.reply, connection, http);
    expect(network).toMatchObject({ ok: false, retryable: true });
    for (const result of [failed, network]) {
      expect(JSON.stringify(result)).not.toMatch(/s1|tok-2|127\.0\.0\.1/);
    }
    // Answered all the same: tasks/get has the reply.
    expect((await adapter.tasks.get(connection.id, unreachable.task.id))?.state).toBe('completed');
  });

  it('leaves a canceled task canceled and pushes nothing', async () => {
    const before = client.requests.length;
    const { task, reply } = await newTask({ url: `${client.baseUrl}/hook` });
    expect((await adapter.tasks.cancel(connection.id, task.id)).kind).toBe('canceled');
    expect((await adapter.sendResponse(reply, connection, http)).ok).toBe(true);
    expect((await adapter.tasks.get(connection.id, task.id))?.state).toBe('canceled');
    expect(client.requests.length).toBe(before);
  });

  it('refuses a push URL the connection does not allow, and a reply that names no task', async () => {
    const strict = { ...connection, settings: {} };
    const { reply } = await newTask({ url: `${client.baseUrl}/hook` });
    expect(await adapter.sendResponse(reply, strict, http)).toMatchObject({ ok: false, retryable: false });
    expect(await adapter.sendResponse({ ...reply, metadata: {} }, connection, http)).toMatchObject({
      ok: false,
      retryable: false,
    });
  });

  it('pushes through the callback guard: a loopback URL is refused for good unless allowlisted', async () => {
    const before = client.requests.length;
    answer = () => ({ status: 200, body: {} });
    const guarded = (allowlist: string | undefined) =>
      createA2aAdapter({
        pool: db.pool,
        pushFetch: createGuardedFetch({ allowlist: parseCallbackAllowlist(allowlist) }),
      });
    const refused = await newTask({ url: `${client.baseUrl}/hook?secret=s9`, token: 'tok-9' });
    const result = await guarded(undefined).sendResponse(refused.reply, connection, http);
    expect(result).toEqual({
      ok: false,
      retryable: false,
      error: 'a2a push notification: URL refused (forbidden_address)',
    });
    expect(client.requests.length).toBe(before);

    const allowed = await newTask({ url: `${client.baseUrl}/hook`, token: 'tok-10' });
    expect((await guarded('127.0.0.1/32').sendResponse(allowed.reply, connection, http)).ok).toBe(true);
    expect(client.requests.length).toBe(before + 1);
  });

  it('has no webhook ingress', () => {
    const req = { headers: {}, body: {}, rawBody: Buffer.from('{}'), url: 'https://x', query: {} };
    expect(adapter.verifyRequest(req, connection)).toBe(false);
    expect(adapter.parseIncoming(req, connection)).toEqual([]);
  });
});
