import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sessionStream } from '@parley/events';
import { createSdkTokens, type SdkTokenClaims, type SessionLimits } from '@parley/http';
import { silentLogger } from '@parley/platform';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { buildApp } from '../../app.js';
import { redactUrl } from '../../requestLogSerializers.js';
import { type ChatWorld, createChatWorld, inProcessLimits } from '../../testing/chatFixture.js';
import { sessionScopeFromLog } from '../chat/sessionScopeFromLog.js';
import { CLOSE_TOKEN_EXPIRED, WEB_CHAT_SUBPROTOCOL } from './webChat.js';

const SECRET = 'web-chat-sdk-token-secret-at-least-32-chars';
const sdk = createSdkTokens({ secret: SECRET, ttlSeconds: 300 });
const ORIGIN = 'https://shop.example.com';

type Json = Record<string, unknown>;
let world: ChatWorld;
let project: { tenantId: string; projectId: string };
const opened: FastifyInstance[] = [];
let base: string;

async function listening(
  options: { sdkTokens?: boolean; limits?: Partial<SessionLimits>; keepAliveMs?: number } = {},
) {
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    webChat: {
      ...(options.sdkTokens === false ? {} : { verifySdkToken: sdk.verify }),
      runtime: world.runtime,
      sessionScope: sessionScopeFromLog(world.store),
      limits: inProcessLimits(options.limits),
      store: world.store,
      ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  opened.push(app);
  return `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  world = await createChatWorld();
  project = await world.newProject();
  base = await listening();
});
afterAll(async () => {
  for (const app of opened) await app.close();
  await world.close();
});

const tokenFor = async (extra: Partial<SdkTokenClaims> = {}, tokens = sdk) =>
  (
    await tokens.issue({
      tenantId: project.tenantId,
      projectId: project.projectId,
      sub: 'visitor_ws',
      origin: ORIGIN,
      ...extra,
    })
  ).token;

/** A connected client with its server messages queued in order. */
interface Client {
  ws: WebSocket;
  next(): Promise<Json>;
  /** Messages until (and including) the first of this type. */
  until(type: string): Promise<Json[]>;
  send(message: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

function connect(
  url: string,
  options: { protocols?: string[]; origin?: string; headers?: Record<string, string> } = {},
): Promise<Client> {
  const ws = new WebSocket(url, options.protocols ?? [], {
    ...(options.origin === undefined ? {} : { origin: options.origin }),
    headers: options.headers ?? {},
  });
  const queue: Json[] = [];
  const waiters: Array<(m: Json) => void> = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as Json;
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const next = () =>
    new Promise<Json>((resolve, reject) => {
      const queued = queue.shift();
      if (queued) return resolve(queued);
      const timer = setTimeout(() => reject(new Error('no message within 10 s')), 10_000);
      waiters.push((m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  const client: Client = {
    ws,
    next,
    async until(type) {
      const seen: Json[] = [];
      for (;;) {
        const m = await next();
        seen.push(m);
        if (m.type === type) return seen;
      }
    },
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    closed,
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** An upgrade the server refuses: its HTTP status and JSON body. */
function refused(
  url: string,
  options: { protocols?: string[]; origin?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json }> {
  const ws = new WebSocket(url, options.protocols ?? [], {
    ...(options.origin === undefined ? {} : { origin: options.origin }),
    headers: options.headers ?? {},
  });
  return new Promise((resolve, reject) => {
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res: IncomingMessage) => {
      let text = '';
      res.on('data', (chunk) => {
        text += String(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Json }));
    });
  });
}

async function sessionEvents(sessionId: string): Promise<Array<{ type: string; data: Json }>> {
  const events: Array<{ type: string; data: Json }> = [];
  for await (const e of world.store.readStream(sessionStream(sessionId))) {
    events.push({ type: e.type, data: e.data as Json });
  }
  return events;
}

const path = '/api/v1/sdk/ws';

describe('GET /api/v1/sdk/ws: the web chat WebSocket', () => {
  it('chats with the token as subprotocol: ready, typing, streamed deltas, the reply with every field; the session is web_chat/sdk_websocket of the token user', async () => {
    const client = await connect(`${base}${path}`, {
      protocols: [WEB_CHAT_SUBPROTOCOL, await tokenFor()],
      origin: ORIGIN,
    });
    expect(client.ws.protocol).toBe(WEB_CHAT_SUBPROTOCOL);
    expect(await client.next()).toEqual({ type: 'ready', sessionId: null });

    client.send({ type: 'message', text: '/say Hello from the web chat', clientMessageId: 'c-1' });
    const seen = await client.until('reply');
    expect(seen[0]).toEqual({ type: 'typing', on: true });
    const deltas = seen.filter((m) => m.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(seen.at(-2)).toEqual({ type: 'typing', on: false });
    const reply = seen.at(-1)!;
    expect(reply).toEqual({
      type: 'reply',
      messageId: expect.any(String),
      text: expect.stringContaining('Hello from the web chat'),
      sessionId: expect.any(String),
      eventId: expect.stringMatching(/^\d+$/),
      clientMessageId: 'c-1',
    });
    for (const d of deltas)
      expect(d).toEqual({ type: 'text_delta', messageId: reply.messageId, delta: expect.any(String) });
    expect(deltas.map((d) => d.delta).join('')).toBe(reply.text);

    const events = await sessionEvents(reply.sessionId as string);
    expect(events[0]).toMatchObject({
      type: 'SessionStarted',
      data: {
        projectId: project.projectId,
        tenantId: project.tenantId,
        channel: 'web_chat',
        channelType: 'sdk_websocket',
        channelUserId: 'visitor_ws',
      },
    });
    expect(events.find((e) => e.type === 'MessageReceived')?.data).toMatchObject({
      text: '/say Hello from the web chat',
      externalMessageId: 'c-1',
    });
    const replied = events.findIndex((e) => e.type === 'AgentReplied');
    expect(String(replied)).toBe(reply.eventId);
    expect(events[replied]!.data.messageId).toBe(reply.messageId);

    // The next message continues the same session.
    client.send({ type: 'message', text: '/say again' });
    const second = (await client.until('reply')).at(-1)!;
    expect(second.sessionId).toBe(reply.sessionId);
    expect(second).not.toHaveProperty('clientMessageId');
    expect(Number(second.eventId)).toBeGreaterThan(Number(reply.eventId));

    client.send({ type: 'ping' });
    expect(await client.next()).toEqual({ type: 'pong' });
    client.ws.close();
  });

  it('takes the token as ?token= and as X-SDK-Token (a token without origin claim: any or no Origin)', async () => {
    const byQuery = await connect(`${base}${path}?token=${await tokenFor()}`, { origin: ORIGIN });
    expect(await byQuery.next()).toEqual({ type: 'ready', sessionId: null });
    byQuery.ws.close();

    const noOrigin = await tokenFor({ origin: undefined });
    const byHeader = await connect(`${base}${path}`, { headers: { 'x-sdk-token': noOrigin } });
    expect(await byHeader.next()).toEqual({ type: 'ready', sessionId: null });
    byHeader.send({ type: 'message', text: '/say header' });
    expect((await byHeader.until('reply')).at(-1)).toMatchObject({ text: expect.stringContaining('header') });
    byHeader.ws.close();
  });

  it('request logs never carry the ?token= of an upgrade', () => {
    expect(redactUrl('/api/v1/sdk/ws?token=aaa.bbb.ccc&x=1')).toBe('/api/v1/sdk/ws?token=[redacted]&x=1');
  });

  it('401: no token, a malformed token, a token of another secret, two different tokens', async () => {
    const unauthorized = {
      status: 401,
      body: expect.objectContaining({ error: 'Missing or invalid credentials' }),
    };
    expect(await refused(`${base}${path}`, { origin: ORIGIN })).toEqual(unauthorized);
    expect(await refused(`${base}${path}?token=not-a-token`, { origin: ORIGIN })).toEqual(unauthorized);
    const foreign = createSdkTokens({ secret: 'another-secret-of-at-least-32-characters!' });
    expect(await refused(`${base}${path}?token=${await tokenFor({}, foreign)}`, { origin: ORIGIN })).toEqual(
      unauthorized,
    );
    const [a, b] = [await tokenFor({ sub: 'a' }), await tokenFor({ sub: 'b' })];
    expect(
      await refused(`${base}${path}?token=${a}`, { origin: ORIGIN, protocols: [WEB_CHAT_SUBPROTOCOL, b] }),
    ).toEqual(unauthorized);
  });

  it("403 ORIGIN_NOT_ALLOWED: another Origin than the token's, or none", async () => {
    const token = await tokenFor();
    for (const origin of ['https://evil.example.com', undefined]) {
      const res = await refused(`${base}${path}?token=${token}`, { ...(origin ? { origin } : {}) });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED', message: expect.any(String) } });
    }
  });

  it('426 UPGRADE_REQUIRED for a plain GET; 503 SDK_NOT_CONFIGURED without SDK tokens', async () => {
    const res = await fetch(`${base.replace('ws:', 'http:')}${path}?token=${await tokenFor()}`);
    expect(res.status).toBe(426);
    expect(await res.json()).toMatchObject({ error: { code: 'UPGRADE_REQUIRED' } });

    const document = (await (await fetch(`${base.replace('ws:', 'http:')}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(document.paths).not.toHaveProperty(path);

    const unconfigured = await listening({ sdkTokens: false });
    const off = await refused(`${unconfigured}${path}?token=${await tokenFor()}`, { origin: ORIGIN });
    expect(off.status).toBe(503);
    expect(off.body).toMatchObject({ error: { code: 'SDK_NOT_CONFIGURED' } });
  });

  it('answers INVALID_MESSAGE to frames that are not protocol messages, and stays open', async () => {
    const client = await connect(`${base}${path}?token=${await tokenFor()}`, { origin: ORIGIN });
    await client.next();
    for (const bad of ['not json', '{"type":"shout"}', '{"type":"message","text":""}', '{"type":"resume"}']) {
      client.send(bad);
      expect(await client.next()).toMatchObject({
        type: 'error',
        code: 'INVALID_MESSAGE',
        message: expect.any(String),
      });
    }
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE' });
    // Text PostgreSQL cannot store: refused, naming the field, before any turn or lookup.
    for (const [bad, field] of [
      [{ type: 'message', text: 'hello\u0000world' }, 'text'],
      [{ type: 'resume', sessionId: 'ses_\ud800' }, 'sessionId'],
    ] as const) {
      client.send(bad);
      expect(await client.next()).toEqual({
        type: 'error',
        code: 'INVALID_MESSAGE',
        message: `${field}: contains text that cannot be stored (U+0000 or an unpaired surrogate)`,
      });
    }
    client.send({ type: 'ping' });
    expect(await client.next()).toEqual({ type: 'pong' });
    client.ws.close();
  });

  it('reconnect and resume: the replies after `after`, then the conversation continues in that session', async () => {
    const token = await tokenFor({ sub: 'visitor_resume' });
    const first = await connect(`${base}${path}?token=${token}`, { origin: ORIGIN });
    await first.next();
    first.send({ type: 'message', text: '/say one' });
    const one = (await first.until('reply')).at(-1)!;
    first.send({ type: 'message', text: '/say two' });
    const two = (await first.until('reply')).at(-1)!;
    first.ws.close();

    const again = await connect(`${base}${path}?token=${token}`, { origin: ORIGIN });
    await again.next();
    again.send({ type: 'resume', sessionId: one.sessionId, after: one.eventId });
    expect(await again.next()).toEqual({
      type: 'reply',
      messageId: two.messageId,
      text: two.text,
      sessionId: one.sessionId,
      eventId: two.eventId,
    });
    expect(await again.next()).toEqual({ type: 'ready', sessionId: one.sessionId });
    again.send({ type: 'message', text: '/say three' });
    expect((await again.until('reply')).at(-1)).toMatchObject({ sessionId: one.sessionId });

    // Without `after`: every reply of the session.
    again.send({ type: 'resume', sessionId: one.sessionId });
    const all = await again.until('ready');
    expect(all.filter((m) => m.type === 'reply').map((m) => m.messageId)).toEqual(
      expect.arrayContaining([one.messageId, two.messageId]),
    );
    expect(all.filter((m) => m.type === 'reply')).toHaveLength(3);
    again.ws.close();

    // Another end user's token cannot resume it.
    const stranger = await connect(`${base}${path}?token=${await tokenFor({ sub: 'someone_else' })}`, {
      origin: ORIGIN,
    });
    await stranger.next();
    stranger.send({ type: 'resume', sessionId: one.sessionId });
    expect(await stranger.next()).toEqual({
      type: 'error',
      code: 'SESSION_NOT_FOUND',
      message: expect.any(String),
    });
    stranger.send({ type: 'resume', sessionId: 'sess_does_not_exist' });
    expect(await stranger.next()).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
    stranger.ws.close();
  });

  it('a socket that goes away mid-turn does not lose the reply: resume gets it', async () => {
    const token = await tokenFor({ sub: 'visitor_gone' });
    const client = await connect(`${base}${path}?token=${token}`, { origin: ORIGIN });
    await client.next();
    client.send({ type: 'message', text: '/delay 300 /say late answer' });
    expect(await client.next()).toEqual({ type: 'typing', on: true });
    client.ws.close();
    await client.closed;
    // The turn goes on without its socket: wait for its reply to be recorded.
    const replied = async () =>
      (
        await world.db.pool.query<{ session_id: string }>(
          `select s.data->>'sessionId' as session_id from events s
            join events r on r.stream_id = s.stream_id and r.type = 'AgentReplied'
           where s.type = 'SessionStarted' and s.data->>'channelUserId' = 'visitor_gone'`,
        )
      ).rows;
    let rows = await replied();
    for (let i = 0; i < 100 && rows.length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await replied();
    }
    expect(rows).toHaveLength(1);
    const sessionId = rows[0]!.session_id;
    const again = await connect(`${base}${path}?token=${token}`, { origin: ORIGIN });
    await again.next();
    again.send({ type: 'resume', sessionId });
    expect(await again.next()).toMatchObject({
      type: 'reply',
      text: expect.stringContaining('late answer'),
      sessionId,
    });
    expect(await again.next()).toEqual({ type: 'ready', sessionId });
    again.ws.close();
  });

  it('an ended session: the reply says so and the next message starts a new session', async () => {
    const client = await connect(`${base}${path}?token=${await tokenFor()}`, { origin: ORIGIN });
    await client.next();
    client.send({ type: 'message', text: '/say bye /end contained_resolved' });
    const bye = (await client.until('reply')).at(-1)!;
    expect(bye.ended).toMatchObject({ status: expect.any(String) });
    client.send({ type: 'message', text: '/say hello again' });
    const next = (await client.until('reply')).at(-1)!;
    expect(next.sessionId).not.toBe(bye.sessionId);
    expect(next).not.toHaveProperty('ended');
    client.ws.close();
  });

  it('the session message rate: RATE_LIMIT_EXCEEDED with retryAfterMs, typing off', async () => {
    const limited = await listening({ limits: { messagesPerMinute: 1 } });
    const client = await connect(`${limited}${path}?token=${await tokenFor()}`, { origin: ORIGIN });
    await client.next();
    client.send({ type: 'message', text: '/say first', clientMessageId: 'm1' });
    await client.until('reply');
    client.send({ type: 'message', text: '/say second', clientMessageId: 'm2' });
    expect(await client.next()).toEqual({
      type: 'error',
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.any(String),
      retryAfterMs: expect.any(Number),
      clientMessageId: 'm2',
    });
    client.ws.close();
  });

  it(`closes with ${CLOSE_TOKEN_EXPIRED} when the SDK token expires`, async () => {
    const short = createSdkTokens({ secret: SECRET, ttlSeconds: 1 });
    const client = await connect(`${base}${path}?token=${await tokenFor({}, short)}`, { origin: ORIGIN });
    expect(await client.closed).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: 'token expired' });
  });

  it('pings the client, and drops one that stops answering', async () => {
    const fast = await listening({ keepAliveMs: 100 });
    // A client that does not answer pings (ws answers them itself unless told not to).
    const ws = new WebSocket(`${fast}${path}?token=${await tokenFor()}`, { origin: ORIGIN, autoPong: false });
    let pinged = 0;
    ws.on('ping', () => {
      pinged += 1;
    });
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(pinged).toBeGreaterThanOrEqual(1);
    expect(code).toBe(1006);

    // One that answers stays connected across pings.
    const healthy = await connect(`${fast}${path}?token=${await tokenFor()}`, { origin: ORIGIN });
    await healthy.next();
    let answered = 0;
    healthy.ws.on('ping', () => {
      answered += 1;
    });
    // Past three pings (the silent client above was dropped after one), answered, it is still open.
    await vi.waitFor(() => expect(answered).toBeGreaterThanOrEqual(3), { timeout: 5_000, interval: 20 });
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    healthy.send({ type: 'ping' });
    expect(await healthy.next()).toEqual({ type: 'pong' });
    healthy.ws.close();
  });
});
