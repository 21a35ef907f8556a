import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sessionStream } from '@parley/events';
import { openApiProblems } from '@parley/http/testing';
import { createAgentStore, createSseParser, type SseEvent } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ChatWorld,
  createChatWorld,
  inProcessLimits,
  JWT_SECRET,
  listeningChatApp,
} from '../../testing/chatFixture.js';

let world: ChatWorld;
let app: FastifyInstance;
let base: string;
let project: { tenantId: string; projectId: string; key: string };
const opened: FastifyInstance[] = [];

beforeAll(async () => {
  world = await createChatWorld();
  project = await world.newProject();
  ({ app, url: base } = await listeningChatApp(world));
  opened.push(app);
});
afterAll(async () => {
  for (const a of opened) await a.close();
  await world.close();
});

type Json = Record<string, unknown>;

const post = (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  root = base,
  signal?: AbortSignal,
) =>
  fetch(`${root}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': project.key, ...headers },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });

/** A request with a user's JWT as its only credential. */
const postAs = (token: string, url: string, body: unknown, root = base) =>
  fetch(`${root}${url}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: body === undefined ? null : JSON.stringify(body),
  });

/** A real SSE client: reads the response body stream as it arrives and parses it (WHATWG rules). */
async function readSse(
  res: Response,
): Promise<{ events: Array<{ event: string; data: Json }>; raw: string }> {
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const parsed: SseEvent[] = [];
  let raw = '';
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
    parsed.push(...parser.feed(value));
  }
  parsed.push(...parser.end());
  return { events: parsed.map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json })), raw };
}

const stream = (body: unknown, headers: Record<string, string> = {}, root = base, signal?: AbortSignal) =>
  post('/api/v1/chat/stream', body, { accept: 'text/event-stream', ...headers }, root, signal);

describe('POST /api/v1/chat/stream (a real SSE client over a listening server)', () => {
  it('streams chunk/text_delta pairs, then usage, done and complete, and records the turn', async () => {
    const res = await stream({ projectId: project.projectId, message: 'Hello there, how are you today?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const { events } = await readSse(res);

    const names = events.map((e) => e.event);
    const pieces = names.indexOf('usage');
    expect(pieces).toBeGreaterThanOrEqual(2);
    // Before usage: chunk and text_delta alternate, one pair per piece of the reply.
    for (let i = 0; i < pieces; i += 2) expect(names.slice(i, i + 2)).toEqual(['chunk', 'text_delta']);
    expect(names.slice(pieces)).toEqual(['usage', 'done', 'complete']);

    const done = events.at(-2)!.data;
    const complete = events.at(-1)!.data;
    const chunks = events.filter((e) => e.event === 'chunk').map((e) => e.data);
    const deltas = events.filter((e) => e.event === 'text_delta').map((e) => e.data);
    for (const c of chunks)
      expect(c).toEqual({ messageId: done.messageId, text: expect.any(String), done: false });
    for (const d of deltas) expect(Object.keys(d).sort()).toEqual(['delta', 'messageId']);
    expect(chunks.map((c) => c.text).join('')).toBe(done.text);
    expect(deltas.map((d) => d.delta).join('')).toBe(done.text);
    expect(done).toEqual({
      messageId: expect.any(String),
      text: expect.any(String),
      done: true,
      sessionId: expect.any(String),
    });
    const usage = events[pieces]!.data;
    expect(usage).toEqual({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(complete).toEqual({
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: expect.any(Number),
      latencyMs: expect.any(Number),
      sessionId: done.sessionId,
      ended: null,
    });
    expect(complete.totalTokens).toBeGreaterThanOrEqual(
      (usage.inputTokens as number) + (usage.outputTokens as number),
    );

    const types = await world.eventTypes(done.sessionId as string);
    expect(types.slice(0, 2)).toEqual(['SessionStarted', 'MessageReceived']);
    expect(types).toContain('LlmCallRecorded');
    expect(types).toContain('TraceEventRecorded');
    expect(types.at(-1)).toBe('AgentReplied');
  });

  it('a tool turn streams one usage event per LLM call, as each call ends; complete sums them', async () => {
    const res = await stream({ projectId: project.projectId, message: 'Weather? /tool weather city=Lyon' });
    const { events } = await readSse(res);
    const names = events.map((e) => e.event);
    // Call 1 asked for the tool (no text): its usage first; call 2 streamed the reply, then its usage.
    expect(names[0]).toBe('usage');
    expect(names.slice(-3)).toEqual(['usage', 'done', 'complete']);
    const usages = events.filter((e) => e.event === 'usage').map((e) => e.data);
    expect(usages).toHaveLength(2);
    const complete = events.at(-1)!.data;
    expect(complete.inputTokens).toBe(usages.reduce((sum, u) => sum + (u.inputTokens as number), 0));
    expect(complete.outputTokens).toBe(usages.reduce((sum, u) => sum + (u.outputTokens as number), 0));
    const calls = (await world.eventTypes(events.at(-2)!.data.sessionId as string)).filter(
      (t) => t === 'LlmCallRecorded',
    );
    expect(calls).toHaveLength(usages.length);
  });

  it('continues a session, and says when the agent ended it', async () => {
    const first = await readSse(await stream({ projectId: project.projectId, message: 'hi' }));
    const sessionId = first.events.at(-1)!.data.sessionId;
    const second = await readSse(await stream({ sessionId, message: 'thanks, bye /end contained_resolved' }));
    expect(second.events.at(-1)!.data).toMatchObject({
      sessionId,
      ended: { status: expect.any(String), containmentType: 'contained_resolved' },
    });
    const after = await stream({ sessionId, message: 'still there?' });
    expect(after.status).toBe(409);
    expect(await after.json()).toEqual({
      success: false,
      error: { code: 'SESSION_ENDED', message: expect.any(String) },
    });
  });

  it('carries an ACTION_SET in done', async () => {
    const { events } = await readSse(
      await stream({ projectId: project.projectId, message: 'pick /buttons Yes | No' }),
    );
    const done = events.find((e) => e.event === 'done')!.data;
    expect(done.actionSet).toMatchObject({ elements: expect.any(Array) });
  });

  it('sends a `: heartbeat` comment at the interval while the turn runs', async () => {
    const { app: beating, url } = await listeningChatApp(world, { heartbeatMs: 40 });
    opened.push(beating);
    const res = await stream({ projectId: project.projectId, message: 'slow one /delay 300' }, {}, url);
    const { raw, events } = await readSse(res);
    const firstEvent = raw.indexOf('event: ');
    const beats = raw.slice(0, firstEvent).match(/^: heartbeat\n\n/gm) ?? [];
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(events.at(-1)!.event).toBe('complete');
  });

  it('aborts the turn when the client goes away: the provider call is cancelled and no reply is recorded', async () => {
    const seen: { signal?: AbortSignal; outcome?: string } = {};
    let finished!: () => void;
    const turnFinished = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const limits = inProcessLimits({ maxConcurrentSessions: 1 });
    const { app: watched, url } = await listeningChatApp(world, {
      limits,
      heartbeatMs: 50,
      runtime: {
        endSession: world.runtime.endSession,
        async runTurn(req, options) {
          seen.signal = options?.signal;
          try {
            const result = await world.runtime.runTurn(req, options);
            seen.outcome = 'replied';
            return result;
          } catch (err) {
            seen.outcome = (err as { code?: string }).code ?? 'threw';
            throw err;
          } finally {
            finished();
          }
        },
      },
    });
    opened.push(watched);
    const fresh = await world.newProject();
    const client = new AbortController();
    const res = await stream(
      { projectId: fresh.projectId, message: 'take your time /delay 5000' },
      { 'x-api-key': fresh.key },
      url,
      client.signal,
    );
    expect(res.status).toBe(200);
    const startedAt = Date.now();
    // Aborted while the turn runs (its /delay), not before it began.
    await vi.waitFor(() => expect(seen.signal).toBeDefined(), { interval: 10 });
    client.abort();
    await turnFinished;
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.outcome).toBe('TURN_ABORTED');
    // The new session's place under the concurrent-sessions limit (1) is given back (as the request
    // closes, just after the turn).
    await vi.waitFor(
      async () => {
        const next = await post(
          '/api/v1/chat/send',
          { projectId: fresh.projectId, message: 'hello again' },
          { 'x-api-key': fresh.key },
          url,
        );
        expect(next.status).toBe(200);
      },
      { timeout: 5_000, interval: 20 },
    );
  });

  it('answers a provider failure before any output with JSON 502, and one after the stream opened with an `error` event', async () => {
    const early = await stream({ projectId: project.projectId, message: 'boom /error 500' });
    expect(early.status).toBe(502);
    expect(await early.json()).toEqual({
      success: false,
      error: { code: 'PROVIDER_FAILED', message: 'Internal error' },
    });

    const { app: beating, url } = await listeningChatApp(world, { heartbeatMs: 40 });
    opened.push(beating);
    const res = await stream(
      { projectId: project.projectId, message: 'boom later /delay 200 /error 500' },
      {},
      url,
    );
    expect(res.status).toBe(200);
    const { events, raw } = await readSse(res);
    expect(raw.startsWith(': heartbeat\n\n')).toBe(true);
    expect(events).toEqual([
      {
        event: 'error',
        data: { code: 'PROVIDER_FAILED', message: 'Internal error', requestId: expect.any(String) },
      },
    ]);
  });

  it('answers 503 PROVIDER_NOT_CONFIGURED (upper snake case) for an agent whose provider has no settings', async () => {
    // A project of its own: its first agent becomes the default of every new session there.
    const fresh = await world.newProject();
    await createAgentStore(world.db.pool).create(fresh.projectId, {
      name: 'unconfigured',
      provider: 'openai-compatible',
      model: 'gpt-4o-mini',
    });
    const res = await post(
      '/api/v1/chat/send',
      { projectId: fresh.projectId, agentName: 'unconfigured', message: 'hi' },
      { 'x-api-key': fresh.key },
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      success: false,
      error: { code: 'PROVIDER_NOT_CONFIGURED', message: 'Service unavailable' },
    });
  });

  it('answers JSON errors before the stream starts: 406 for an Accept without event-stream', async () => {
    const res = await stream({ projectId: project.projectId, message: 'hi' }, { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(await res.json()).toEqual({
      success: false,
      error: { code: 'NOT_ACCEPTABLE', message: expect.any(String) },
    });
    const any = await stream({ projectId: project.projectId, message: 'hi' }, { accept: '*/*' });
    expect(any.status).toBe(200);
    await readSse(any);
  });
});

describe('POST /api/v1/chat/send and /api/v1/chat/agent', () => {
  it('creates the session on the first message and continues it with sessionId', async () => {
    const first = await post('/api/v1/chat/send', { projectId: project.projectId, message: 'Hello!' });
    expect(first.status).toBe(200);
    const body = (await first.json()) as { success: boolean; data: Json };
    expect(body).toEqual({
      success: true,
      data: {
        sessionId: expect.any(String),
        created: true,
        userMessageId: expect.any(String),
        agentName: expect.any(String),
        reply: { messageId: expect.any(String), text: expect.any(String) },
        usage: {
          inputTokens: expect.any(Number),
          cachedTokens: expect.any(Number),
          completionTokens: expect.any(Number),
          reasoningTokens: expect.any(Number),
          outputTokens: expect.any(Number),
          totalTokens: expect.any(Number),
        },
        latencyMs: expect.any(Number),
        ended: null,
      },
    });
    const sessionId = body.data.sessionId;
    const second = await post('/api/v1/chat/send', { sessionId, message: 'And again' });
    expect(((await second.json()) as { data: Json }).data).toMatchObject({ sessionId, created: false });
    const types = await world.eventTypes(sessionId as string);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(2);
    expect(types.filter((t) => t === 'AgentReplied')).toHaveLength(2);
  });

  it('records the session under the protocol channel asked for: api by default, or http (which does not stream)', async () => {
    const viaHttp = await post('/api/v1/chat/send', {
      projectId: project.projectId,
      message: 'hi',
      channel: 'http',
    });
    expect(viaHttp.status).toBe(200);
    const viaApi = await post('/api/v1/chat/send', { projectId: project.projectId, message: 'hi' });
    const started = async (res: Response) => {
      const { data } = (await res.json()) as { data: { sessionId: string } };
      for await (const e of world.store.readStream(sessionStream(data.sessionId)))
        if (e.type === 'SessionStarted') return e.data;
      return undefined;
    };
    expect(await started(viaHttp)).toMatchObject({ channel: 'http', channelType: 'http' });
    expect(await started(viaApi)).toMatchObject({ channel: 'api', channelType: 'api' });

    const streamed = await stream({ projectId: project.projectId, message: 'hi', channel: 'http' });
    expect(streamed.status).toBe(400);
    expect(await streamed.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const unknown = await post('/api/v1/chat/send', {
      projectId: project.projectId,
      message: 'hi',
      channel: 'sms',
    });
    expect(unknown.status).toBe(400);
  });

  it('chat/agent needs projectId and answers as chat/send', async () => {
    const missing = await post('/api/v1/chat/agent', { message: 'hi' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const res = await post('/api/v1/chat/agent', { projectId: project.projectId, message: 'hi' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Json }).data).toMatchObject({ created: true, ended: null });
  });

  it('400 VALIDATION_ERROR: neither projectId nor sessionId, an empty message, a sessionId over 256 characters', async () => {
    for (const body of [
      { message: 'hi' },
      { projectId: project.projectId, message: '' },
      { sessionId: 's'.repeat(257), message: 'hi' },
      { projectId: project.projectId, message: 'hi', agentName: 'x'.repeat(65) },
    ]) {
      for (const url of ['/api/v1/chat/send', '/api/v1/chat/stream']) {
        const res = await post(url, body, { accept: 'text/event-stream' });
        expect(res.status, `${url} ${JSON.stringify(body)}`).toBe(400);
        expect(await res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
      }
    }
  });

  it('401, 403 and 404 in the spec envelopes', async () => {
    const other = await world.newProject();
    const readOnly = await world.newProject(['analytics.read']);
    const cases: Array<[Record<string, string>, unknown, number, unknown]> = [
      [
        { 'x-api-key': 'plat_nope_0123456789abcdef' },
        { projectId: project.projectId, message: 'hi' },
        401,
        null,
      ],
      [{ 'x-api-key': '', authorization: '' }, { projectId: project.projectId, message: 'hi' }, 401, null],
      [
        { 'x-api-key': readOnly.key },
        { projectId: readOnly.projectId, message: 'hi' },
        403,
        {
          success: false,
          error: { code: 'PERMISSION_REQUIRED', message: expect.any(String) },
          required: 'chat:write',
        },
      ],
      [
        { 'x-api-key': project.key, 'x-sdk-token': 'tok' },
        { projectId: project.projectId, message: 'hi' },
        401,
        null,
      ],
      [
        { 'x-api-key': project.key },
        { projectId: other.projectId, message: 'hi' },
        404,
        { success: false, error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found' } },
      ],
      [
        { 'x-api-key': project.key },
        { sessionId: 'sess_does_not_exist', message: 'hi' },
        404,
        { success: false, error: { code: 'SESSION_NOT_FOUND', message: expect.any(String) } },
      ],
    ];
    for (const [headers, body, status, expected] of cases) {
      for (const url of ['/api/v1/chat/send', '/api/v1/chat/stream']) {
        const res = await post(url, body, { accept: 'text/event-stream', ...headers });
        expect(res.status, `${url} ${JSON.stringify(headers)}`).toBe(status);
        const json = await res.json();
        if (status === 401)
          expect(json).toEqual({ error: 'Missing or invalid credentials', requestId: expect.any(String) });
        else expect(json).toEqual(expected);
      }
    }
    const pk = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, message: 'hi' },
      { 'x-api-key': 'pk_live_1' },
    );
    expect(pk.status).toBe(403);
    expect(await pk.json()).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: expect.any(String) },
    });
  });

  it("404 SESSION_NOT_FOUND for another project's session, as for one that does not exist", async () => {
    const other = await world.newProject();
    const theirs = await post(
      '/api/v1/chat/send',
      { projectId: other.projectId, message: 'hi' },
      { 'x-api-key': other.key },
    );
    const { sessionId } = ((await theirs.json()) as { data: Json }).data;
    const res = await post('/api/v1/chat/send', { sessionId, message: 'let me in' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      success: false,
      error: { code: 'SESSION_NOT_FOUND', message: expect.any(String) },
    });
  });
});

describe('POST /api/v1/sessions/{sessionId}/end', () => {
  it('ends a session once; again answers ended false; an unknown session is 404', async () => {
    const started = await post('/api/v1/chat/send', { projectId: project.projectId, message: 'hi' });
    const { sessionId } = ((await started.json()) as { data: Json }).data;
    const end = () => post(`/api/v1/sessions/${sessionId}/end`, undefined);
    const first = await end();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ success: true, data: { sessionId, ended: true, status: 'ended' } });
    expect(await (await end()).json()).toEqual({
      success: true,
      data: { sessionId, ended: false, status: 'ended' },
    });
    expect((await world.eventTypes(sessionId as string)).at(-1)).toBe('SessionEnded');
    const unknown = await post('/api/v1/sessions/sess_unknown_1/end', undefined);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
    const noKey = await fetch(`${base}/api/v1/sessions/${sessionId}/end`, { method: 'POST' });
    expect(noKey.status).toBe(401);
  });
});

describe('session limits (spec 000 §8)', () => {
  it('429 with `{ error, retryAfterMs }` and Retry-After past the per-session message rate', async () => {
    const { app: limited, url } = await listeningChatApp(world, {
      limits: inProcessLimits({ messagesPerMinute: 3 }),
    });
    opened.push(limited);
    const mine = await world.newProject();
    const send = (body: Json) => post('/api/v1/chat/send', body, { 'x-api-key': mine.key }, url);
    const first = await send({ projectId: mine.projectId, message: 'one' });
    const { sessionId } = ((await first.json()) as { data: Json }).data;
    expect((await send({ sessionId, message: 'two' })).status).toBe(200);
    expect((await send({ sessionId, message: 'three' })).status).toBe(200);
    for (const path of ['/api/v1/chat/send', '/api/v1/chat/stream']) {
      const refused = await post(
        path,
        { sessionId, message: 'four' },
        { 'x-api-key': mine.key, accept: 'text/event-stream' },
        url,
      );
      expect(refused.status).toBe(429);
      const body = (await refused.json()) as Json;
      expect(body).toEqual({ error: 'Too many messages in this session', retryAfterMs: expect.any(Number) });
      expect(body.retryAfterMs).toBeGreaterThan(50_000);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(50);
    }
    // Another session of the same project has its own window.
    expect((await send({ projectId: mine.projectId, message: 'new session' })).status).toBe(200);
  });

  it('429 for a new session past the concurrent sessions of the tenant; ending one frees a place', async () => {
    const { app: limited, url } = await listeningChatApp(world, {
      limits: inProcessLimits({ maxConcurrentSessions: 2 }),
    });
    opened.push(limited);
    const mine = await world.newProject();
    const send = (body: Json) => post('/api/v1/chat/send', body, { 'x-api-key': mine.key }, url);
    const a = ((await (await send({ projectId: mine.projectId, message: 'a' })).json()) as { data: Json })
      .data;
    await send({ projectId: mine.projectId, message: 'b' });
    const refused = await send({ projectId: mine.projectId, message: 'c' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: 'Too many concurrent sessions for this tenant',
      retryAfterMs: expect.any(Number),
    });
    // Active sessions keep talking.
    expect((await send({ sessionId: a.sessionId, message: 'still here' })).status).toBe(200);
    // Another tenant is not affected.
    const theirs = await world.newProject();
    const other = await post(
      '/api/v1/chat/send',
      { projectId: theirs.projectId, message: 'x' },
      { 'x-api-key': theirs.key },
      url,
    );
    expect(other.status).toBe(200);
    // An agent-ended session and an explicitly ended one both free their place.
    await post(`/api/v1/sessions/${a.sessionId}/end`, undefined, { 'x-api-key': mine.key }, url);
    const c = await send({ projectId: mine.projectId, message: 'c, then done /end contained_resolved' });
    expect(c.status).toBe(200);
    expect((await send({ projectId: mine.projectId, message: 'd' })).status).toBe(200);
  });
});

describe('user JWT bearer tokens', () => {
  let jwks: Server;
  let jwksUrl: string;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;

  beforeAll(async () => {
    keys = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => jwks.close(() => resolve())));

  const hs256 = (claims: Json) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user_7')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));

  it('HS256: talks in the projects the token names, continuing a session by its id alone', async () => {
    const second = await world.newProject();
    // The token names a project of another tenant too: the verifier drops it, so it is not found.
    const token = await hs256({
      tenant_id: project.tenantId,
      project_ids: [project.projectId, second.projectId],
      scope: 'chat.write',
    });
    const res = await postAs(token, '/api/v1/chat/send', {
      projectId: project.projectId,
      message: 'hello from a user',
    });
    expect(res.status).toBe(200);
    const { sessionId } = ((await res.json()) as { data: Json }).data;
    // The session's project is looked up in the log.
    const cont = await postAs(token, '/api/v1/chat/stream', { sessionId, message: 'and more' });
    expect(cont.status).toBe(200);
    expect((await readSse(cont)).events.at(-1)!.data.sessionId).toBe(sessionId);
    const ended = await postAs(token, `/api/v1/sessions/${sessionId}/end`, undefined);
    expect(await ended.json()).toMatchObject({ data: { ended: true } });
    const foreign = await postAs(token, '/api/v1/chat/send', { projectId: second.projectId, message: 'hi' });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: 'PROJECT_NOT_FOUND' } });
  });

  it('a session outside the projects of the token is not found; a token without chat.write is 403', async () => {
    const other = await world.newProject();
    const theirs = await post(
      '/api/v1/chat/send',
      { projectId: other.projectId, message: 'hi' },
      { 'x-api-key': other.key },
    );
    const { sessionId } = ((await theirs.json()) as { data: Json }).data;
    const token = await hs256({
      tenant_id: project.tenantId,
      project_ids: [project.projectId, 'proj_x'],
      scope: 'chat.write',
    });
    const res = await fetch(`${base}/api/v1/chat/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ sessionId, message: 'hi' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } });
    const noScope = await hs256({
      tenant_id: project.tenantId,
      project_ids: [project.projectId],
      scope: 'analytics.read',
    });
    const refused = await fetch(`${base}/api/v1/chat/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${noScope}` },
      body: JSON.stringify({ projectId: project.projectId, message: 'hi' }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { code: 'PERMISSION_REQUIRED' },
      required: 'chat:write',
    });
  });

  it('ES256 from a JWKS served locally: streams a reply', async () => {
    const { app: withJwks, url } = await listeningChatApp(world, { jwksUrl });
    opened.push(withJwks);
    const token = await new SignJWT({
      tenant_id: project.tenantId,
      project_ids: [project.projectId],
      scope: 'chat.write',
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('user_8')
      .setExpirationTime('5m')
      .sign(keys.privateKey);
    const res = await fetch(`${url}/api/v1/chat/stream`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ projectId: project.projectId, message: 'hi from the IdP' }),
    });
    expect(res.status).toBe(200);
    expect((await readSse(res)).events.map((e) => e.event).slice(-3)).toEqual(['usage', 'done', 'complete']);
    const expired = await new SignJWT({
      tenant_id: project.tenantId,
      project_ids: [project.projectId],
      scope: 'chat.write',
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('user_8')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 300)
      .sign(keys.privateKey);
    const late = await fetch(`${url}/api/v1/chat/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${expired}` },
      body: JSON.stringify({ projectId: project.projectId, message: 'hi' }),
    });
    expect(late.status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('documents the four conversation endpoints in a valid OpenAPI 3.1 document', async () => {
    const res = await app.inject('/openapi.json');
    const document = res.json();
    const routes = [
      { method: 'POST', url: '/api/v1/chat/send' },
      { method: 'POST', url: '/api/v1/chat/stream' },
      { method: 'POST', url: '/api/v1/chat/agent' },
      { method: 'POST', url: '/api/v1/sessions/:sessionId/end' },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
    expect(Object.keys(document.paths['/api/v1/chat/stream'].post.responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
  });
});
