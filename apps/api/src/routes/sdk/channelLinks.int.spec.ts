import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  channelsSdkMigrations,
  createSdkChannelStore,
  createSdkChannelTokens,
  type SdkChannelStore,
} from '@parley/channels';
import { createInProcessRateLimiter } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

/** The pages behind SDK channels' share and embed links (`/sdk/share?token=`, `/sdk/embed?token=`). */

const SECRET = 'sdk-secret-for-the-channel-link-tests!!';
const tokens = createSdkChannelTokens({ secret: SECRET });
let db: TestDatabase;
let auth: AuthStore;
let store: SdkChannelStore;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let tenantId: string;
let projectId: string;
let key: string;
let channelId: string;
let inactiveId: string;
let revokedKeyChannelId: string;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsSdkMigrations]);
  auth = createAuthStore(db.pool);
  store = createSdkChannelStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'shop' })).id;
  const pk = await auth.createPublicApiKey({
    projectId,
    allowedOrigins: ['https://shop.example', 'https://parley.example'],
  });
  key = pk.key;
  const revoked = await auth.createPublicApiKey({ projectId, allowedOrigins: ['https://shop.example'] });
  const channel = (name: string, publicApiKeyId: string, isActive = true) =>
    store.create(projectId, { name, channelType: 'web', publicApiKeyId, isActive });
  channelId = (await channel('Support <chat>', pk.id)).id;
  inactiveId = (await channel('Old', pk.id, false)).id;
  revokedKeyChannelId = (await channel('Revoked', revoked.id)).id;
  await auth.revokePublicApiKey(revoked.id);
  const common = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
  };
  app = await buildApp({
    ...common,
    widget: { channelLinks: { tokens, channels: store, publicKeys: auth } },
  });
  unconfigured = await buildApp({
    ...common,
    widget: { channelLinks: { tokens: null, channels: store, publicKeys: auth } },
  });
});
afterAll(async () => {
  await app?.close();
  await unconfigured?.close();
  await db?.close();
});

const link = async (kind: 'share' | 'embed', id: string, ttl?: number) =>
  (await tokens.issue({ kind, tenantId, projectId, channelId: id }, ttl)).token;
const get = (path: string, on = app) => on.inject({ method: 'GET', url: path });

describe('GET /sdk/share and /sdk/embed', () => {
  it('a share link opens a page with the widget of the channel’s public key, not frameable', async () => {
    const res = await get(`/sdk/share?token=${await link('share', channelId)}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.body).toContain(
      `<script src="/sdk/widget.js" async data-public-key="${key}" data-project-id="${projectId}"></script>`,
    );
    // The channel's name is text, never markup.
    expect(res.body).toContain('<h1>Support &lt;chat&gt;</h1>');
  });

  it('an embed link may be framed by the key’s allowed origins only', async () => {
    const res = await get(`/sdk/embed?token=${await link('embed', channelId)}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain(
      'frame-ancestors https://shop.example https://parley.example',
    );
    expect(res.body).toContain(`data-public-key="${key}"`);
  });

  it('answers 404 to a missing, forged or other-kind token, an inactive channel or a revoked key', async () => {
    const share = await link('share', channelId);
    const [head, body] = share.split('.');
    const cases = [
      '/sdk/share',
      '/sdk/share?token=not-a-token',
      `/sdk/share?token=${head}.${body}.${'A'.repeat(43)}`,
      `/sdk/embed?token=${share}`,
      `/sdk/share?token=${await link('share', inactiveId)}`,
      `/sdk/share?token=${await link('share', revokedKeyChannelId)}`,
      `/sdk/share?token=${await link('share', 'sdkc_0000000000000000')}`,
    ];
    for (const path of cases) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body, path).toContain('This link is not valid');
      expect(res.body, path).not.toContain('data-public-key');
    }
  });

  it('answers 410 to an expired link', async () => {
    const expired = createSdkChannelTokens({ secret: SECRET, now: () => new Date(Date.now() - 3_600_000) });
    const token = (await expired.issue({ kind: 'share', tenantId, projectId, channelId }, 60)).token;
    const res = await get(`/sdk/share?token=${token}`);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('This link has expired');
  });

  it('answers 503 when SDK_TOKEN_SECRET is not configured', async () => {
    const res = await get(`/sdk/share?token=${await link('share', channelId)}`, unconfigured);
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('Chat links are not available');
  });
});
