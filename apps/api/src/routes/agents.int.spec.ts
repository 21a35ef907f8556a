import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createInProcessRateLimiter } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createAgentStore, runtimeMigrations } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

let db: TestDatabase;
let auth: AuthStore;
let app: FastifyInstance;
let projectId: string;
let otherProjectId: string;
let writeKey: string;
let readKey: string;
let otherKey: string;
let analyticsKey: string;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, runtimeMigrations]);
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId: tenant.id, slug: 'sales' })).id;
  writeKey = (await auth.createApiKey({ projectId, name: 'w', scopes: ['agents.write'] })).key;
  readKey = (await auth.createApiKey({ projectId, name: 'r', scopes: ['agents.read'] })).key;
  analyticsKey = (await auth.createApiKey({ projectId, name: 'a', scopes: ['analytics.read'] })).key;
  otherKey = (await auth.createApiKey({ projectId: otherProjectId, name: 'o', scopes: ['agents.write'] }))
    .key;
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
    agents: { verifyApiKey: (key) => auth.verifyApiKey(key), agents: createAgentStore(db.pool) },
  });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const base = () => `/api/v1/projects/${projectId}/agents`;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: object) =>
  app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });

describe('agents API', () => {
  it('creates, lists, shows, updates and deletes an agent', async () => {
    const created = await call('POST', base(), writeKey, {
      name: 'support',
      systemPrompt: 'Be kind.',
      tools: [{ name: 'weather', description: 'Weather', parameters: { type: 'object' } }],
      guardrails: { blockedTerms: ['password'] },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      success: true,
      data: {
        name: 'support',
        projectId,
        provider: 'scripted',
        model: 'scripted-1',
        systemPrompt: 'Be kind.',
        tools: [{ name: 'weather', description: 'Weather', parameters: { type: 'object' } }],
        guardrails: { blockedTerms: ['password'] },
        environment: null,
        deploymentId: null,
      },
    });
    expect(body.data.id).toMatch(/^agt_[0-9A-Za-z]{16}$/);

    const list = await call('GET', base(), readKey);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.agents.map((a: { name: string }) => a.name)).toEqual(['support']);

    expect((await call('GET', `${base()}/support`, readKey)).json().data.name).toBe('support');

    const patched = await call('PATCH', `${base()}/support`, writeKey, {
      provider: 'openai-compatible',
      model: 'gpt-4o-mini',
      environment: 'production',
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({
      provider: 'openai-compatible',
      model: 'gpt-4o-mini',
      environment: 'production',
      systemPrompt: 'Be kind.',
    });

    expect((await call('DELETE', `${base()}/support`, writeKey)).statusCode).toBe(204);
    expect((await call('GET', `${base()}/support`, readKey)).statusCode).toBe(404);
    expect((await call('DELETE', `${base()}/support`, writeKey)).json().error.code).toBe('AGENT_NOT_FOUND');
  });

  it('answers 409 for a duplicate name and 400 for invalid fields', async () => {
    expect((await call('POST', base(), writeKey, { name: 'dup' })).statusCode).toBe(201);
    const dup = await call('POST', base(), writeKey, { name: 'dup' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('AGENT_EXISTS');
    for (const payload of [
      { name: 'has space' },
      { name: 'x', provider: 'mystery' },
      { name: 'x', tools: [{ name: 't' }, { name: 't' }] },
      { name: 'x', guardrails: { unknown: true } },
      { name: 'x', extra: 1 },
    ]) {
      const res = await call('POST', base(), writeKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await call('PATCH', `${base()}/dup`, writeKey, { name: 'renamed' })).statusCode).toBe(400);
    expect((await call('PATCH', `${base()}/nobody`, writeKey, { model: 'm' })).statusCode).toBe(404);
  });

  it('checks the credential, the project and the permission', async () => {
    expect((await app.inject({ method: 'GET', url: base() })).statusCode).toBe(401);
    expect((await call('GET', base(), otherKey)).statusCode).toBe(404);
    expect((await call('GET', base(), otherKey)).json().error.code).toBe('PROJECT_NOT_FOUND');
    const noScope = await call('GET', base(), analyticsKey);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().error.code).toBe('PERMISSION_REQUIRED');
    expect((await call('POST', base(), readKey, { name: 'ro' })).statusCode).toBe(403);
    // Another project's agents are not visible through its own key either way.
    await call('POST', `/api/v1/projects/${otherProjectId}/agents`, otherKey, { name: 'sales-bot' });
    const mine = (await call('GET', base(), readKey)).json().data.agents.map((a: { name: string }) => a.name);
    expect(mine).not.toContain('sales-bot');
  });
});

describe('OpenAPI', () => {
  it('documents the five agent operations in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const url = '/api/v1/projects/:projectId/agents';
    const routes = [
      { method: 'GET', url },
      { method: 'POST', url },
      { method: 'GET', url: `${url}/:name` },
      { method: 'PATCH', url: `${url}/:name` },
      { method: 'DELETE', url: `${url}/:name` },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
  });
});
