import type { AddressInfo } from 'node:net';
import { channelInboundMigrations } from '@parley/channels';
import { sessionStream } from '@parley/events';
import { createSdkTokens, type SdkTokenClaims, type SessionLimits } from '@parley/http';
import { migrate, silentLogger } from '@parley/platform';
import { createSseParser, type Runtime } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { type ChatWorld, createChatWorld, inProcessLimits } from '../../testing/chatFixture.js';
import { sessionScopeFromLog } from '../chat/sessionScopeFromLog.js';

const SECRET = 'ag-ui-sdk-token-secret-at-least-32-chars!';
const sdk = createSdkTokens({ secret: SECRET, ttlSeconds: 300 });
const ORIGIN = 'https://app.example.com';

type Json = Record<string, unknown>;
let world: ChatWorld;
let project: { tenantId: string; projectId: string; key: string };
let other: { tenantId: string; projectId: string; key: string };
let base: string;
const opened: FastifyInstance[] = [];

async function listening(
  overrides: { limits?: Partial<SessionLimits>; runtime?: Pick<Runtime, 'runTurn' | 'endSession'> } = {},
) {
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    agUi: {
      verifyApiKey: (key) => world.auth.verifyApiKey(key),
      verifySdkToken: sdk.verify,
      runtime: overrides.runtime ?? world.runtime,
      sessionScope: sessionScopeFromLog(world.store),
      limits: inProcessLimits(overrides.limits),
      pool: world.db.pool,
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  opened.push(app);
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  world = await createChatWorld();
  await migrate(world.db.pool, [channelInboundMigrations]);
  project = await world.newProject();
  other = await world.newProject();
  base = await listening();
});
afterAll(async () => {
  for (const app of opened) await app.close();
  await world.close();
});

const tokenFor = async (extra: Partial<SdkTokenClaims> = {}) =>
  (
    await sdk.issue({
      tenantId: project.tenantId,
      projectId: project.projectId,
      sub: 'agui_user',
      origin: ORIGIN,
      ...extra,
    })
  ).token;

let runs = 0;
function input(text: string, threadId: string, extra: Json = {}): Json {
  runs += 1;
  return {
    threadId,
    runId: `run_${runs}`,
    state: {},
    messages: [
      { id: `u_${runs}_0`, role: 'user', content: 'earlier message (ignored)' },
      { id: `a_${runs}_0`, role: 'assistant', content: 'earlier answer' },
      { id: `u_${runs}`, role: 'user', content: text },
    ],
    tools: [],
    context: [],
    ...extra,
  };
}

const run = (body: unknown, headers: Record<string, string>, root = base) =>
  fetch(`${root}/api/v1/ag-ui/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

async function events(res: Response): Promise<Json[]> {
  const parser = createSseParser();
  const parsed = [...parser.feed(new Uint8Array(await res.arrayBuffer())), ...parser.end()];
  return parsed.map((e) => JSON.parse(e.data) as Json);
}

async function sessionEvents(sessionId: string): Promise<Array<{ type: string; data: Json }>> {
  const out: Array<{ type: string; data: Json }> = [];
  for await (const e of world.store.readStream(sessionStream(sessionId))) {
    out.push({ type: e.type, data: e.data as Json });
  }
  return out;
}

const sdkHeaders = async (extra: Partial<SdkTokenClaims> = {}) => ({
  'x-sdk-token': await tokenFor(extra),
  origin: ORIGIN,
});

describe('POST /api/v1/ag-ui/run', () => {
  it('streams AG-UI events for an SDK token (CORS for its origin) and records an ag_ui session of the end user', async () => {
    const body = input('/say Hello from AG-UI', 'thread_a');
    const res = await run(body, await sdkHeaders());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    const list = await events(res);
    for (const e of list) expect(e.timestamp).toEqual(expect.any(Number));
    const types = list.map((e) => e.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types[1]).toBe('TEXT_MESSAGE_START');
    expect(types.slice(-2)).toEqual(['TEXT_MESSAGE_END', 'RUN_FINISHED']);
    expect(new Set(types.slice(2, -2))).toEqual(new Set(['TEXT_MESSAGE_CONTENT']));
    expect(list[0]).toEqual({
      type: 'RUN_STARTED',
      threadId: 'thread_a',
      runId: body.runId,
      timestamp: expect.any(Number),
    });
    const messageId = list[1]!.messageId as string;
    expect(list[1]).toEqual({
      type: 'TEXT_MESSAGE_START',
      messageId,
      role: 'assistant',
      timestamp: expect.any(Number),
    });
    const text = list
      .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
      .map((e) => {
        expect(e.messageId).toBe(messageId);
        expect((e.delta as string).length).toBeGreaterThan(0);
        return e.delta;
      })
      .join('');
    expect(text).toContain('Hello from AG-UI');
    expect(list.at(-2)).toEqual({ type: 'TEXT_MESSAGE_END', messageId, timestamp: expect.any(Number) });
    const finished = list.at(-1)!;
    expect(finished).toEqual({
      type: 'RUN_FINISHED',
      threadId: 'thread_a',
      runId: body.runId,
      result: { sessionId: expect.any(String), messageId, ended: null },
      timestamp: expect.any(Number),
    });
    const sessionId = (finished.result as Json).sessionId as string;
    const recorded = await sessionEvents(sessionId);
    expect(recorded[0]).toMatchObject({
      type: 'SessionStarted',
      data: {
        channel: 'ag_ui',
        channelType: 'ag_ui',
        channelUserId: 'agui_user',
        projectId: project.projectId,
      },
    });
    expect(recorded.filter((e) => e.type === 'MessageReceived').map((e) => e.data)).toEqual([
      expect.objectContaining({
        text: '/say Hello from AG-UI',
        externalMessageId: (body.messages as Json[])[2]!.id,
        channelMetadata: { threadId: 'thread_a', runId: body.runId },
      }),
    ]);
  });

  it('a thread is a session: the next run continues it; another end user or a platform key with the same threadId get their own', async () => {
    const sessionOf = async (res: Response) => ((await events(res)).at(-1)!.result as Json).sessionId;
    const first = await sessionOf(await run(input('/say one', 'thread_b'), await sdkHeaders()));
    const second = await sessionOf(await run(input('/say two', 'thread_b'), await sdkHeaders()));
    expect(second).toBe(first);
    const stranger = await sessionOf(
      await run(input('/say hi', 'thread_b'), await sdkHeaders({ sub: 'other' })),
    );
    expect(stranger).not.toBe(first);
    const platform = await sessionOf(await run(input('/say hi', 'thread_b'), { 'x-api-key': project.key }));
    expect([first, stranger]).not.toContain(platform);
    const platformAgain = await sessionOf(
      await run(input('/say again', 'thread_b'), { 'x-api-key': project.key }),
    );
    expect(platformAgain).toBe(platform);
  });

  it('a thread whose session ended goes on in a new session; ACTION_SETs come as CUSTOM parley.action_set', async () => {
    const headers = await sdkHeaders({ sub: 'ender' });
    const bye = await events(await run(input('/say bye /end contained_resolved', 'thread_c'), headers));
    const byeResult = bye.at(-1)!.result as Json;
    expect(byeResult.ended).toMatchObject({ status: expect.any(String) });
    const next = await events(await run(input('/say hello /buttons Yes | No', 'thread_c'), headers));
    const result = next.at(-1)!.result as Json;
    expect(result.sessionId).not.toBe(byeResult.sessionId);
    expect(next.find((e) => e.type === 'CUSTOM')).toMatchObject({
      name: 'parley.action_set',
      value: expect.objectContaining({ elements: expect.any(Array) }),
    });
    const again = await events(await run(input('/say still here', 'thread_c'), headers));
    expect((again.at(-1)!.result as Json).sessionId).toBe(result.sessionId);
  });

  it('401 without a credential or with a bad SDK token', async () => {
    for (const headers of [{} as Record<string, string>, { 'x-sdk-token': 'a.b.c', origin: ORIGIN }]) {
      const res = await run(input('/say x', 't401'), headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'Missing or invalid credentials' });
    }
  });

  it('403: a key without chat:write (PERMISSION_REQUIRED), an SDK token from another origin (ORIGIN_NOT_ALLOWED)', async () => {
    const readOnly = await world.newProject(['traces.read']);
    const noPermission = await run(input('/say x', 't403'), { 'x-api-key': readOnly.key });
    expect(noPermission.status).toBe(403);
    expect(await noPermission.json()).toMatchObject({ error: { code: 'PERMISSION_REQUIRED' } });
    const wrongOrigin = await run(input('/say x', 't403'), {
      'x-sdk-token': await tokenFor(),
      origin: 'https://evil.example.com',
    });
    expect(wrongOrigin.status).toBe(403);
    expect(await wrongOrigin.json()).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
  });

  it('404 PROJECT_NOT_FOUND for forwardedProps.projectId the caller does not reach', async () => {
    const res = await run(input('/say x', 't404', { forwardedProps: { projectId: other.projectId } }), {
      'x-api-key': project.key,
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'PROJECT_NOT_FOUND' } });
  });

  it('400 VALIDATION_ERROR: no threadId, no messages, a last message that is not the user’s', async () => {
    const headers = { 'x-api-key': project.key };
    const noThread = input('/say x', 'ignored');
    delete noThread.threadId;
    const bodies = [
      noThread,
      { ...input('/say x', 't400'), messages: [] },
      { ...input('/say x', 't400'), messages: [{ id: 'a', role: 'assistant', content: 'hi' }] },
      {
        ...input('/say x', 't400'),
        messages: [{ id: 'u', role: 'user', content: [{ type: 'binary', mimeType: 'image/png', url: 'x' }] }],
      },
    ];
    for (const body of bodies) {
      const res = await run(body, headers);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }
    // Text parts of a multi-part user message are the input.
    const parts = await run(
      {
        ...input('', 't400'),
        messages: [{ id: 'u', role: 'user', content: [{ type: 'text', text: '/say parts' }] }],
      },
      headers,
    );
    expect(parts.status).toBe(200);
    expect((await events(parts)).at(-1)!.type).toBe('RUN_FINISHED');
  });

  it('406 for a client that does not accept text/event-stream', async () => {
    const res = await run(input('/say x', 't406'), { 'x-api-key': project.key, accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_ACCEPTABLE' } });
  });

  it('429 RATE_LIMIT_EXCEEDED beyond the session message rate', async () => {
    const limited = await listening({ limits: { messagesPerMinute: 1 } });
    const ok = await run(input('/say one', 't429'), { 'x-api-key': project.key }, limited);
    expect(ok.status).toBe(200);
    await events(ok);
    const res = await run(input('/say two', 't429'), { 'x-api-key': project.key }, limited);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toEqual(expect.any(String));
  });

  it('is in the OpenAPI document (the WebSocket route is not)', async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { operationId?: string; responses: Record<string, { content: object }> }>
      >;
    };
    const run = document.paths['/api/v1/ag-ui/run']?.post;
    expect(run?.operationId).toBe('agUiRun');
    // The stream's own media type, not application/json.
    expect(Object.keys(run?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
  });

  it('RUN_ERROR after the stream started (the text message is closed first); 5xx details stay inside', async () => {
    const failing = await listening({
      runtime: {
        runTurn: async (_req, options) => {
          options?.onEvent?.({ type: 'text_delta', messageId: 'msg_partial', delta: 'partial ' });
          throw new Error('provider exploded with a secret detail');
        },
        endSession: world.runtime.endSession,
      },
    });
    const res = await run(input('/say x', 't500'), { 'x-api-key': project.key }, failing);
    expect(res.status).toBe(200);
    const list = await events(res);
    expect(list.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_ERROR',
    ]);
    expect(list.at(-1)).toEqual({
      type: 'RUN_ERROR',
      message: 'Internal error',
      code: 'INTERNAL_ERROR',
      timestamp: expect.any(Number),
    });
  });
});
