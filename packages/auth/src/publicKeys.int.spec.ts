import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthStore, createAuthStore } from './authStore.js';
import { authMigrations } from './migrations.js';
import type { Project } from './types.js';

let db: TestDatabase;
let store: AuthStore;
let clock = new Date('2026-11-21T08:00:00Z');

beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
  store = createAuthStore(db.pool, { now: () => clock });
});
afterAll(() => db.close());

async function newProject(): Promise<Project> {
  const tenant = await store.createTenant({ name: 'Acme' });
  return store.createProject({ tenantId: tenant.id, slug: 'shop' });
}

describe('public widget keys', () => {
  it('creates a key with normalized origins and default permissions, and resolves it', async () => {
    const project = await newProject();
    const created = await store.createPublicApiKey({
      projectId: project.id,
      allowedOrigins: ['https://Shop.Example.com/', 'http://localhost:5173'],
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^pkk_[0-9A-Za-z]{16}$/),
      tenantId: project.tenantId,
      projectId: project.id,
      name: 'widget',
      key: expect.stringMatching(/^pk_[0-9A-Za-z]{32}$/),
      allowedOrigins: ['https://shop.example.com', 'http://localhost:5173'],
      permissions: { chat: true, voice: false },
      status: 'active',
      createdAt: expect.any(Date),
      revokedAt: null,
    });
    expect(await store.getPublicApiKey(created.id)).toEqual(created);
    expect(await store.resolvePublicKey(created.key)).toEqual({
      id: created.id,
      tenantId: project.tenantId,
      projectId: project.id,
      allowedOrigins: ['https://shop.example.com', 'http://localhost:5173'],
      permissions: { chat: true, voice: false },
    });
  });

  it('takes a name and permissions; refuses bad ones and unknown projects', async () => {
    const project = await newProject();
    const voice = await store.createPublicApiKey({
      projectId: project.id,
      allowedOrigins: ['https://a.example'],
      permissions: { voice: true },
      name: ' Voice kiosk ',
    });
    expect(voice).toMatchObject({ name: 'Voice kiosk', permissions: { chat: true, voice: true } });
    const base = { projectId: project.id, allowedOrigins: ['https://a.example'] };
    await expect(store.createPublicApiKey({ ...base, allowedOrigins: [] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(
      store.createPublicApiKey({ ...base, allowedOrigins: ['https://a.example/path'] }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      store.createPublicApiKey({ ...base, permissions: { admin: true } as never }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      store.createPublicApiKey({ ...base, permissions: { chat: 'yes' } as never }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(store.createPublicApiKey({ ...base, name: ' ' })).rejects.toMatchObject({ status: 400 });
    await expect(store.createPublicApiKey({ ...base, projectId: 'proj_missing' })).rejects.toMatchObject({
      code: 'PROJECT_NOT_FOUND',
      status: 404,
    });
  });

  it('lists oldest first with revoked ones; a revoked key no longer resolves', async () => {
    const project = await newProject();
    const a = await store.createPublicApiKey({
      projectId: project.id,
      allowedOrigins: ['https://a.example'],
    });
    const b = await store.createPublicApiKey({
      projectId: project.id,
      allowedOrigins: ['https://b.example'],
    });
    clock = new Date('2026-11-21T09:00:00Z');
    const revoked = await store.revokePublicApiKey(a.id);
    expect(revoked).toMatchObject({ id: a.id, status: 'revoked', revokedAt: clock });
    clock = new Date('2026-11-21T10:00:00Z');
    expect((await store.revokePublicApiKey(a.id))?.revokedAt).toEqual(new Date('2026-11-21T09:00:00Z'));
    expect(await store.revokePublicApiKey('pkk_missing')).toBeNull();
    const listed = await store.listPublicApiKeys(project.id);
    expect(listed.map((k) => [k.id, k.status])).toEqual([
      [a.id, 'revoked'],
      [b.id, 'active'],
    ]);
    expect(await store.resolvePublicKey(a.key)).toBeNull();
    expect(await store.resolvePublicKey(b.key)).not.toBeNull();
  });

  it('resolves nothing for unknown or malformed keys, without throwing', async () => {
    for (const bad of [
      '',
      'pk_',
      'pk_short',
      `pk_${'x'.repeat(32)}`,
      `plat_${'a'.repeat(55)}`,
      "pk_' or 1=1",
    ]) {
      expect(await store.resolvePublicKey(bad)).toBeNull();
    }
  });

  it('tells a CORS preflight whether an active key lists an origin', async () => {
    const project = await newProject();
    const other = await newProject();
    const unique = `https://p${Date.now()}.example`;
    const key = await store.createPublicApiKey({ projectId: project.id, allowedOrigins: [unique] });
    expect(await store.isPublicOriginListed(unique)).toBe(true);
    expect(await store.isPublicOriginListed(unique, project.id)).toBe(true);
    expect(await store.isPublicOriginListed(unique, other.id)).toBe(false);
    expect(await store.isPublicOriginListed('https://unlisted.example')).toBe(false);
    await store.revokePublicApiKey(key.id);
    expect(await store.isPublicOriginListed(unique)).toBe(false);
  });
});
