import type { AddressInfo } from 'node:net';
import { expandScopes } from '@parley/auth';
import { sessionStream } from '@parley/events';
import { createJwtVerifier, createSdkTokens, type SdkTokenClaims } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { ledgerStats, listLedger } from '@parley/projection-llm-ledger';
import { projectionFreshness } from '@parley/projection-runner';
import { listSessions } from '@parley/projection-session-summaries';
import { createTraceReads } from '@parley/projection-traces';
import { createSseParser } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import {
  type ChatWorld,
  createChatWorld,
  inProcessLimits,
  JWT_SECRET,
  listeningChatApp,
} from '../../testing/chatFixture.js';
import { sessionScopeFromLog } from './sessionScopeFromLog.js';

const SDK_SECRET = 'sdk-token-secret-for-the-chat-tests!!';
const sdk = createSdkTokens({ secret: SDK_SECRET, ttlSeconds: 300 });

let world: ChatWorld;
let app: FastifyInstance;
let base: string;
let project: { tenantId: string; projectId: string; key: string };
let other: { tenantId: string; projectId: string; key: string };
const opened: FastifyInstance[] = [];

/** The chat routes (SDK tokens on), and the traces and analytics routes, which never take SDK tokens. */
async function listening(withSdkTokens: boolean): Promise<{ app: FastifyInstance; url: string }> {
  const { pool } = world.db;
  const a = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    chat: {
      verifyApiKey: (key) => world.auth.verifyApiKey(key),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => world.auth.tenantProjects(t, p),
      }),
      ...(withSdkTokens ? { verifySdkToken: sdk.verify } : {}),
      runtime: world.runtime,
      sessionScope: sessionScopeFromLog(world.store),
      limits: inProcessLimits(),
    },
    traces: {
      verifyApiKey: (key) => world.auth.verifyApiKey(key),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => world.auth.tenantProjects(t, p),
      }),
      reads: createTraceReads(pool),
    },
    analytics: {
      verify: (key) => world.auth.verifyApiKey(key),
      listSessions: (filter) => listSessions(pool, filter),
      listLedger: (filter) => listLedger(pool, filter),
      ledgerStats: (filter) => ledgerStats(pool, filter),
      callerNumberLookupEnabled: async () => true,
      freshness: (projection) => projectionFreshness(pool, projection),
    },
  });
  await a.listen({ port: 0, host: '127.0.0.1' });
  opened.push(a);
  return { app: a, url: `http://127.0.0.1:${(a.server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  world = await createChatWorld();
  project = await world.newProject();
  other = await world.newProject();
  ({ app, url: base } = await listening(true));
});
afterAll(async () => {
  for (const a of opened) await a.close();
  await world.close();
});

type Json = Record<string, unknown>;

const tokenFor = async (p: { tenantId: string; projectId: string }, extra: Partial<SdkTokenClaims> = {}) =>
  (await sdk.issue({ tenantId: p.tenantId, projectId: p.projectId, sub: 'visitor_1', ...extra })).token;

const post = (url: string, body: unknown, headers: Record<string, string>, root = base) =>
  fetch(`${root}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

async function sessionStarted(sessionId: string): Promise<Json> {
  for await (const e of world.store.readStream(sessionStream(sessionId), { maxCount: 1 })) {
    expect(e.type).toBe('SessionStarted');
    return e.data as Json;
  }
  throw new Error(`no session ${sessionId}`);
}

async function readSse(res: Response): Promise<Array<{ event: string; data: Json }>> {
  const parser = createSseParser();
  const events = [...parser.feed(new Uint8Array(await res.arrayBuffer())), ...parser.end()];
  return events.map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }));
}

const AUTH_401 = { error: 'Missing or invalid credentials', requestId: expect.any(String) };

describe('the conversation endpoints with an SDK token (X-SDK-Token)', () => {
  it("chat/send: starts a session with the token's sub as channelUserId (the body's is ignored) and continues it", async () => {
    const token = await tokenFor(project, { sub: 'visitor_send' });
    const first = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, message: 'hello', channelUserId: 'someone_else' },
      { 'x-sdk-token': token },
    );
    expect(first.status).toBe(200);
    const { data } = (await first.json()) as { data: { sessionId: string; created: boolean } };
    expect(data.created).toBe(true);
    expect(await sessionStarted(data.sessionId)).toMatchObject({
      projectId: project.projectId,
      tenantId: project.tenantId,
      channelUserId: 'visitor_send',
    });

    const next = await post(
      '/api/v1/chat/send',
      { sessionId: data.sessionId, message: 'again' },
      { 'x-sdk-token': token },
    );
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ data: { sessionId: data.sessionId, created: false } });

    const ended = await post(`/api/v1/sessions/${data.sessionId}/end`, undefined, { 'x-sdk-token': token });
    expect(ended.status).toBe(200);
    expect(await ended.json()).toMatchObject({ data: { sessionId: data.sessionId, ended: true } });
  });

  it('chat/stream: streams the reply (chunk, done, complete) into a session of the end user', async () => {
    const token = await tokenFor(project, { sub: 'visitor_stream', channelId: 'chan_web' });
    const res = await post(
      '/api/v1/chat/stream',
      { projectId: project.projectId, message: 'tell me something' },
      { 'x-sdk-token': token },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readSse(res);
    const names = events.map((e) => e.event);
    expect(names).toContain('chunk');
    expect(names.slice(-2)).toEqual(['done', 'complete']);
    const done = events.find((e) => e.event === 'done')!.data;
    expect(done).toMatchObject({ done: true, sessionId: expect.any(String) });
    expect(await sessionStarted(done.sessionId as string)).toMatchObject({ channelUserId: 'visitor_stream' });
  });

  it("404 PROJECT_NOT_FOUND for another project's id, as a key of that project gets", async () => {
    const token = await tokenFor(project);
    for (const url of ['/api/v1/chat/send', '/api/v1/chat/stream', '/api/v1/chat/agent']) {
      const res = await post(url, { projectId: other.projectId, message: 'hi' }, { 'x-sdk-token': token });
      expect(res.status, url).toBe(404);
      expect(await res.json()).toEqual({
        success: false,
        error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found' },
      });
    }
    // A token naming a project of another tenant reaches nothing either.
    const crossed = await sdk.issue({ tenantId: other.tenantId, projectId: project.projectId, sub: 'v' });
    const res = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, message: 'hi' },
      { 'x-sdk-token': crossed.token },
    );
    expect(res.status).toBe(404);
  });

  it("404 SESSION_NOT_FOUND for another end user's session or a session started with a key", async () => {
    const mine = await tokenFor(project, { sub: 'visitor_a' });
    const theirs = await tokenFor(project, { sub: 'visitor_b' });
    const started = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, message: 'hi' },
      {
        'x-sdk-token': mine,
      },
    );
    const { sessionId } = ((await started.json()) as { data: { sessionId: string } }).data;
    const byKey = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, message: 'hi' },
      {
        'x-api-key': project.key,
      },
    );
    const keySession = ((await byKey.json()) as { data: { sessionId: string } }).data.sessionId;

    for (const [token, id] of [
      [theirs, sessionId],
      [mine, keySession],
      [mine, 'sess_does_not_exist'],
    ] as const) {
      for (const url of ['/api/v1/chat/send', '/api/v1/chat/stream']) {
        const res = await post(url, { sessionId: id, message: 'hi' }, { 'x-sdk-token': token });
        expect(res.status, `${url} ${id}`).toBe(404);
        expect(await res.json()).toMatchObject({ success: false, error: { code: 'SESSION_NOT_FOUND' } });
      }
      const end = await post(`/api/v1/sessions/${id}/end`, undefined, { 'x-sdk-token': token });
      expect(end.status).toBe(404);
    }
    // With the project named too, the session still has to be the end user's.
    const named = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, sessionId, message: 'hi' },
      { 'x-sdk-token': theirs },
    );
    expect(named.status).toBe(404);
  });

  it('401 in the authentication envelope: expired, tampered, another secret, not a JWT, with another credential', async () => {
    const past = createSdkTokens({
      secret: SDK_SECRET,
      ttlSeconds: 60,
      now: () => new Date(Date.now() - 600_000),
    });
    const expired = (await past.issue({ ...project, sub: 'v' })).token;
    const valid = await tokenFor(project);
    const tampered = `${valid.slice(0, 20)}${valid[20] === 'A' ? 'B' : 'A'}${valid.slice(21)}`;
    const stranger = createSdkTokens({ secret: 'another-secret-of-at-least-32-characters' });
    const foreign = (await stranger.issue({ ...project, sub: 'v' })).token;
    const cases: Array<Record<string, string>> = [
      { 'x-sdk-token': expired },
      { 'x-sdk-token': tampered },
      { 'x-sdk-token': foreign },
      { 'x-sdk-token': 'not-a-token' },
      { 'x-sdk-token': valid, 'x-api-key': project.key },
      { 'x-sdk-token': valid, authorization: `Bearer ${project.key}` },
    ];
    for (const headers of cases) {
      for (const url of ['/api/v1/chat/send', '/api/v1/chat/stream']) {
        const res = await post(url, { projectId: project.projectId, message: 'hi' }, headers);
        expect(res.status, `${url} ${Object.keys(headers).join(',')}`).toBe(401);
        expect(await res.json()).toEqual(AUTH_401);
      }
    }
  });

  it('401 for any SDK token when SDK_TOKEN_SECRET is not configured', async () => {
    const { url } = await listeningChatApp(world);
    const res = await post(
      '/api/v1/chat/send',
      { projectId: project.projectId, message: 'hi' },
      { 'x-sdk-token': await tokenFor(project) },
      url,
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(AUTH_401);
  });

  it('a token minted for an origin: 403 ORIGIN_NOT_ALLOWED from another Origin, fine from its own', async () => {
    const token = await tokenFor(project, { origin: 'https://shop.example' });
    const body = { projectId: project.projectId, message: 'hi' };
    const wrong = await post('/api/v1/chat/send', body, {
      'x-sdk-token': token,
      origin: 'https://evil.example',
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({
      success: false,
      error: { code: 'ORIGIN_NOT_ALLOWED', message: expect.any(String) },
    });
    const right = await post('/api/v1/chat/send', body, {
      'x-sdk-token': token,
      origin: 'https://shop.example',
    });
    expect(right.status).toBe(200);
  });

  it('is refused on routes other than the conversation endpoints: traces 403 FORBIDDEN, analytics 403 PLATFORM_API_KEY_REQUIRED', async () => {
    const token = await tokenFor(project);
    const get = (url: string) => fetch(`${base}${url}`, { headers: { 'x-sdk-token': token } });

    for (const url of [
      `/api/projects/${project.projectId}/sessions/sess_1/traces`,
      `/api/projects/${project.projectId}/sessions/generations`,
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(403);
      expect(await res.json()).toEqual({
        success: false,
        error: { code: 'FORBIDDEN', message: expect.any(String) },
      });
    }
    const analytics = await get(
      `/api/public/analytics/projects/${project.projectId}/sessions?startDate=2026-01-01T00:00:00Z&endDate=2026-02-01T00:00:00Z`,
    );
    expect(analytics.status).toBe(403);
    expect(await analytics.json()).toMatchObject({
      success: false,
      error: { code: 'PLATFORM_API_KEY_REQUIRED' },
    });
  });

  it('documents the X-SDK-Token scheme on the conversation endpoints', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      components: { securitySchemes: Record<string, Json> };
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
    };
    expect(doc.components.securitySchemes.sdkToken).toMatchObject({ in: 'header', name: 'X-SDK-Token' });
    expect(doc.paths['/api/v1/chat/send']?.post?.security).toContainEqual({ sdkToken: [] });
  });
});
