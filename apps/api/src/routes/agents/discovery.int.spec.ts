import { createHmac } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { createInProcessRateLimiter, createJwtVerifier } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createAgentStore, runtimeMigrations } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

const JWT_SECRET = 'discovery-secret-of-at-least-32-bytes!!';
let db: TestDatabase;
let auth: AuthStore;
let app: FastifyInstance;
let tenantId: string;
let support: string;
let empty: string;
let chatKey: string;
let analyticsKey: string;

function jwt(claims: Record<string, unknown>): string {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, runtimeMigrations]);
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  support = (await auth.createProject({ tenantId, slug: 'support' })).id;
  empty = (await auth.createProject({ tenantId, slug: 'empty' })).id;
  chatKey = (await auth.createApiKey({ projectId: support, name: 'c', scopes: ['chat.write'] })).key;
  analyticsKey = (await auth.createApiKey({ projectId: support, name: 'a', scopes: ['analytics.read'] })).key;
  const agents = createAgentStore(db.pool);
  await agents.create(support, {
    name: 'triage',
    description: 'Routes questions',
    provider: 'openai-compatible',
    tools: [{ name: 'weather' }],
    systemTools: { escalate: false },
    handoffs: { remote: [{ name: 'partner', url: 'https://partner.example/a2a' }] },
  });
  await agents.create(support, { name: 'billing', systemTools: { handoff: false } });
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
    agentDiscovery: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => auth.tenantProjects(t, p),
      }),
      agents,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers });

describe('GET /api/agents/ (agent discovery)', () => {
  it('lists the agents a key reaches, with how to talk to each', async () => {
    const res = await get('/api/agents/', { 'x-api-key': chatKey });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      agents: [
        {
          name: 'triage',
          projectId: support,
          description: 'Routes questions',
          builtin: false,
          provider: 'openai-compatible',
          model: 'gpt-4o-mini',
          tools: ['weather'],
          systemTools: ['handoff', 'end_conversation', 'present_actions', 'attach_media'],
          handoffs: { local: ['billing'], remote: ['partner'] },
          talk: {
            send: { method: 'POST', url: '/api/v1/chat/agent' },
            stream: { method: 'POST', url: '/api/v1/chat/stream', accept: 'text/event-stream' },
            body: { projectId: support, agentName: 'triage' },
          },
        },
        expect.objectContaining({
          name: 'billing',
          systemTools: ['escalate', 'end_conversation', 'present_actions', 'attach_media'],
          handoffs: { local: [], remote: [] },
        }),
      ],
      pagination: { total: 2, limit: 50, offset: 0 },
    });
    const paged = await get('/api/agents?limit=1&offset=1', { 'x-api-key': chatKey });
    expect(paged.json()).toMatchObject({
      agents: [{ name: 'billing' }],
      pagination: { total: 2, limit: 1, offset: 1 },
    });
  });

  it("a user JWT sees its projects' agents; a project without agents shows its built-in one", async () => {
    const token = jwt({
      sub: 'user_1',
      tenant_id: tenantId,
      project_ids: [support, empty],
      scope: 'agents.read',
    });
    const res = await get('/api/agents/', { authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(200);
    const agents = res.json().agents as Array<{ name: string; projectId: string; builtin: boolean }>;
    expect(
      agents.map((a) => [a.projectId === support ? 'support' : 'empty', a.name, a.builtin]).sort(),
    ).toEqual([
      ['empty', 'default', true],
      ['support', 'billing', false],
      ['support', 'triage', false],
    ]);
  });

  it('401 without a valid credential; 403 without agent:read or chat:write; 400 for a bad limit', async () => {
    const none = await get('/api/agents/', {});
    expect(none.statusCode).toBe(401);
    expect(Object.keys(none.json()).sort()).toEqual(['error', 'requestId']);
    expect((await get('/api/agents/', { 'x-api-key': 'plat_nope' })).statusCode).toBe(401);
    const denied = await get('/api/agents/', { 'x-api-key': analyticsKey });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      success: false,
      error: { code: 'PERMISSION_REQUIRED' },
      required: 'chat:write',
    });
    const bad = await get('/api/agents/?limit=500', { 'x-api-key': chatKey });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
  });
});
