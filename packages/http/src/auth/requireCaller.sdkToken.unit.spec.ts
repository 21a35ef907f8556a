import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_MESSAGE } from '../errors/httpError.js';
import { KEYS, testApp, verifyFixedKeys } from '../testing/testApp.js';
import { requireCaller } from './requireCaller.js';
import { createSdkTokens } from './sdkTokens.js';

const sdk = createSdkTokens({ secret: 'sdk-secret-of-at-least-32-characters!!' });
const claims = { tenantId: 'tenant_a', projectId: 'proj_a', sub: 'visitor_7' };

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
  const handler = async (request: { caller: unknown }) => ({ success: true, data: request.caller });
  app.get(
    '/chat',
    {
      preHandler: requireCaller({
        verifyApiKey: verifyFixedKeys,
        acceptSdkToken: true,
        verifySdkToken: sdk.verify,
        permission: 'chat:write',
      }),
    },
    handler,
  );
  app.get(
    '/projects/:projectId/chat',
    {
      preHandler: requireCaller({
        verifyApiKey: verifyFixedKeys,
        acceptSdkToken: true,
        verifySdkToken: sdk.verify,
        permission: 'chat:write',
        projectParam: 'projectId',
      }),
    },
    handler,
  );
  app.get(
    '/chat-unconfigured',
    {
      preHandler: requireCaller({
        verifyApiKey: verifyFixedKeys,
        acceptSdkToken: true,
        permission: 'chat:write',
      }),
    },
    handler,
  );
  app.get(
    '/traces',
    {
      preHandler: requireCaller({
        verifyApiKey: verifyFixedKeys,
        verifySdkToken: sdk.verify,
        permission: 'chat:write',
      }),
    },
    handler,
  );
  app.get(
    '/write-agents',
    {
      preHandler: requireCaller({
        verifyApiKey: verifyFixedKeys,
        acceptSdkToken: true,
        verifySdkToken: sdk.verify,
        permission: 'agent:write',
      }),
    },
    handler,
  );
});

const call = (url: string, headers: Record<string, string>) =>
  app.inject({ url, headers: { 'x-request-id': 'req-3', ...headers } });

describe('requireCaller with acceptSdkToken', () => {
  it('an SDK token is a caller of its one project, its end user as subject, with chat:write only', async () => {
    const { token } = await sdk.issue({ ...claims, channelId: 'chan_1' });
    const res = await call('/chat', { 'x-sdk-token': token });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      kind: 'sdkToken',
      subject: 'visitor_7',
      tenantId: 'tenant_a',
      projectIds: ['proj_a'],
      permissions: ['chat:write'],
      channelId: 'chan_1',
    });
    expect((await call('/projects/proj_a/chat', { 'x-sdk-token': token })).statusCode).toBe(200);
    const elsewhere = await call('/projects/proj_b/chat', { 'x-sdk-token': token });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ error: { code: 'PROJECT_NOT_FOUND' } });
    const more = await call('/write-agents', { 'x-sdk-token': token });
    expect(more.statusCode).toBe(403);
    expect(more.json()).toMatchObject({ error: { code: 'PERMISSION_REQUIRED' }, required: 'agent:write' });
  });

  it('401 for a bad token, one with another credential, and when no verifier is configured', async () => {
    const { token } = await sdk.issue(claims);
    const cases: Array<[string, Record<string, string>]> = [
      ['/chat', { 'x-sdk-token': 'garbage' }],
      ['/chat', { 'x-sdk-token': `${token}x` }],
      ['/chat', { 'x-sdk-token': token, 'x-api-key': KEYS.good }],
      ['/chat', { 'x-sdk-token': token, authorization: `Bearer ${token}` }],
      ['/chat-unconfigured', { 'x-sdk-token': token }],
    ];
    for (const [url, headers] of cases) {
      const res = await call(url, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual({ error: CREDENTIALS_MESSAGE, requestId: 'req-3' });
    }
  });

  it('checks a minted origin against the Origin header when there is one', async () => {
    const { token } = await sdk.issue({ ...claims, origin: 'https://a.example' });
    expect((await call('/chat', { 'x-sdk-token': token, origin: 'https://a.example' })).statusCode).toBe(200);
    expect((await call('/chat', { 'x-sdk-token': token })).statusCode).toBe(200);
    const res = await call('/chat', { 'x-sdk-token': token, origin: 'https://b.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'ORIGIN_NOT_ALLOWED' } });
  });

  it("answers with CORS headers for the token's origin only", async () => {
    const { token } = await sdk.issue({ ...claims, origin: 'https://a.example' });
    const ok = await call('/chat', { 'x-sdk-token': token, origin: 'https://a.example' });
    expect(ok.headers).toMatchObject({ 'access-control-allow-origin': 'https://a.example', vary: 'Origin' });
    expect(ok.json().data).toMatchObject({ kind: 'sdkToken', origin: 'https://a.example' });
    const other = await call('/chat', { 'x-sdk-token': token, origin: 'https://b.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    // A token minted without an origin (the CLI's) gets none: a page cannot read the answer.
    const plain = await call('/chat', {
      'x-sdk-token': (await sdk.issue(claims)).token,
      origin: 'https://a.example',
    });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without acceptSdkToken an SDK token stays a refused credential type (403 FORBIDDEN)', async () => {
    const { token } = await sdk.issue(claims);
    const res = await call('/traces', { 'x-sdk-token': token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });
});
