import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectNotFoundError } from '../connections/errors.js';
import { PublicKeyNotUsableError, SdkChannelNotFoundError } from './sdkChannelErrors.js';
import { createSdkChannelStore, type SdkChannelStore } from './sdkChannelStore.js';
import { channelsSdkMigrations } from './sdkMigrations.js';

let db: TestDatabase;
let auth: AuthStore;
let store: SdkChannelStore;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let keyId: string;
let secondKeyId: string;
let otherProjectKeyId: string;
let revokedKeyId: string;

const publicKey = async (project: string) =>
  (await auth.createPublicApiKey({ projectId: project, allowedOrigins: ['https://shop.example'] })).id;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsSdkMigrations]);
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  keyId = await publicKey(projectId);
  secondKeyId = await publicKey(projectId);
  otherProjectKeyId = await publicKey(otherProjectId);
  revokedKeyId = await publicKey(projectId);
  await auth.revokePublicApiKey(revokedKeyId);
  store = createSdkChannelStore(db.pool);
});
afterAll(async () => {
  await db?.close();
});

const web = (extra: Record<string, unknown> = {}) => ({
  name: 'Shop widget',
  channelType: 'web' as const,
  publicApiKeyId: keyId,
  ...extra,
});

describe('SDK channel store', () => {
  it('creates a channel with every field, and with the defaults', async () => {
    const full = await store.create(projectId, {
      name: '  Shop widget ',
      channelType: 'mobile_ios',
      publicApiKeyId: keyId,
      deploymentId: 'dep_1',
      config: {
        mode: 'unified',
        position: 'top-left',
        theme: { primaryColor: '#0055ff', fontSize: 14, rounded: true },
        welcomeMessage: 'Hello!',
        placeholderText: 'Ask us',
        voiceEnabled: true,
        chatEnabled: false,
      },
      isActive: false,
      environment: 'staging',
      followEnvironment: false,
    });
    expect(full).toEqual({
      id: expect.stringMatching(/^sdkc_[0-9A-Za-z]{16}$/),
      tenantId,
      projectId,
      name: 'Shop widget',
      channelType: 'mobile_ios',
      deploymentId: 'dep_1',
      publicApiKeyId: keyId,
      config: {
        mode: 'unified',
        position: 'top-left',
        theme: { primaryColor: '#0055ff', fontSize: 14, rounded: true },
        welcomeMessage: 'Hello!',
        placeholderText: 'Ask us',
        voiceEnabled: true,
        chatEnabled: false,
      },
      isActive: false,
      environment: 'staging',
      followEnvironment: false,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    const plain = await store.create(projectId, web());
    expect(plain).toMatchObject({
      deploymentId: null,
      config: {},
      isActive: true,
      environment: 'production',
      followEnvironment: true,
    });
    expect(await store.get(projectId, plain.id)).toEqual(plain);
    expect(await store.resolve(plain.id)).toEqual(plain);
  });

  it('refuses an unknown project, and a key that is unknown, revoked or of another project', async () => {
    await expect(store.create('prj_missing', web())).rejects.toBeInstanceOf(ProjectNotFoundError);
    for (const id of ['pkk_0000000000000000', revokedKeyId, otherProjectKeyId]) {
      await expect(store.create(projectId, web({ publicApiKeyId: id }))).rejects.toBeInstanceOf(
        PublicKeyNotUsableError,
      );
    }
    await expect(store.create(projectId, web({ config: { colour: 'red' } }))).rejects.toThrow();
  });

  it('lists oldest first with the total, past the last page too; other projects are not seen', async () => {
    const fresh = (await auth.createProject({ tenantId, slug: `list-${Date.now()}` })).id;
    const freshKey = await publicKey(fresh);
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await store.create(fresh, web({ name: `c${i}`, publicApiKeyId: freshKey })));
    const page = await store.list(fresh, { limit: 2, offset: 1 });
    expect(page.total).toBe(5);
    expect(page.channels.map((c) => c.name)).toEqual(['c1', 'c2']);
    expect(await store.list(fresh, { limit: 2, offset: 10 })).toEqual({ channels: [], total: 5 });
    expect((await store.list(fresh)).channels.map((c) => c.id)).toEqual(made.map((c) => c.id));
    expect(await store.get(otherProjectId, made[0]!.id)).toBeNull();
    expect(await store.list(otherProjectId)).toEqual({ channels: [], total: 0 });
  });

  it('updates only the fields given; config is replaced, deploymentId null clears, the key is checked', async () => {
    const c = await store.create(
      projectId,
      web({ deploymentId: 'dep_1', config: { mode: 'chat', welcomeMessage: 'Hi' } }),
    );
    const changed = await store.update(projectId, c.id, {
      name: 'Renamed',
      config: { position: 'bottom-left' },
      deploymentId: null,
      publicApiKeyId: secondKeyId,
      isActive: false,
      environment: 'dev',
      followEnvironment: false,
    });
    expect(changed).toEqual({
      ...c,
      name: 'Renamed',
      config: { position: 'bottom-left' },
      deploymentId: null,
      publicApiKeyId: secondKeyId,
      isActive: false,
      environment: 'dev',
      followEnvironment: false,
      updatedAt: expect.any(Date),
    });
    expect(changed.updatedAt.getTime()).toBeGreaterThanOrEqual(c.updatedAt.getTime());
    expect(await store.update(projectId, c.id, {})).toEqual(changed);
    for (const id of [revokedKeyId, otherProjectKeyId]) {
      await expect(store.update(projectId, c.id, { publicApiKeyId: id })).rejects.toBeInstanceOf(
        PublicKeyNotUsableError,
      );
    }
    await expect(store.update(projectId, 'sdkc_0000000000000000', { name: 'x' })).rejects.toBeInstanceOf(
      SdkChannelNotFoundError,
    );
    // Not found wins over an unusable key.
    await expect(store.update(otherProjectId, c.id, { publicApiKeyId: revokedKeyId })).rejects.toBeInstanceOf(
      SdkChannelNotFoundError,
    );
    await expect(store.update(projectId, 'sdkc_0000000000000000', {})).rejects.toBeInstanceOf(
      SdkChannelNotFoundError,
    );
    expect(await store.get(projectId, c.id)).toEqual(changed);
  });

  it('deletes once; findActive picks the oldest active channel bound to the key, of the type asked', async () => {
    const fresh = (await auth.createProject({ tenantId, slug: `find-${Date.now()}` })).id;
    const k = await publicKey(fresh);
    expect(await store.findActive({ projectId: fresh, publicApiKeyId: k })).toBeNull();
    await store.create(fresh, web({ publicApiKeyId: k, isActive: false }));
    const voice = await store.create(fresh, web({ publicApiKeyId: k, channelType: 'voice' }));
    const first = await store.create(fresh, web({ publicApiKeyId: k }));
    await store.create(fresh, web({ publicApiKeyId: k }));
    expect((await store.findActive({ projectId: fresh, publicApiKeyId: k, channelType: 'web' }))?.id).toBe(
      first.id,
    );
    expect((await store.findActive({ projectId: fresh, publicApiKeyId: k }))?.id).toBe(voice.id);
    expect(await store.findActive({ projectId: projectId, publicApiKeyId: k })).toBeNull();
    expect(await store.delete(fresh, first.id)).toBe(true);
    expect(await store.delete(fresh, first.id)).toBe(false);
    expect(await store.resolve(first.id)).toBeNull();
  });

  it('goes with its project, keys and all', async () => {
    const doomed = (await auth.createProject({ tenantId, slug: `doomed-${Date.now()}` })).id;
    const c = await store.create(doomed, web({ publicApiKeyId: await publicKey(doomed) }));
    await db.pool.query('delete from projects where id = $1', [doomed]);
    expect(await store.resolve(c.id)).toBeNull();
  });
});
