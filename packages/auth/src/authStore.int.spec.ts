import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LENGTH } from './apiKey.js';
import { type AuthStore, createAuthStore } from './authStore.js';
import { authMigrations } from './migrations.js';
import type { Project } from './types.js';

let db: TestDatabase;
let store: AuthStore;
// A clock the tests move: expiry without sleeping.
let clock = new Date('2026-11-21T08:00:00Z');
const now = () => clock;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
  store = createAuthStore(db.pool, { now });
});
afterAll(() => db.close());

async function newProject(slug = 'support-bot'): Promise<Project> {
  const tenant = await store.createTenant({ name: 'Acme' });
  return store.createProject({ tenantId: tenant.id, slug });
}

describe('tenants and projects', () => {
  it('creates a tenant with features and a rate-limit override, and reads it back', async () => {
    const tenant = await store.createTenant({ name: ' Acme ', features: { callRecording: true } });
    expect(tenant).toMatchObject({
      name: 'Acme',
      features: { callRecording: true },
      rateLimitPerSecond: null,
    });
    expect(tenant.id).toMatch(/^ten_/);
    expect(await store.getTenant(tenant.id)).toEqual(tenant);
    expect(await store.getTenant('ten_missing')).toBeNull();
    const limited = await store.setTenantRateLimit(tenant.id, 25);
    expect(limited.rateLimitPerSecond).toBe(25);
    const featured = await store.setTenantFeatures(tenant.id, { betaLedger: true });
    expect(featured.features).toEqual({ callRecording: true, betaLedger: true });
    await expect(store.setTenantRateLimit(tenant.id, 0)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(store.createTenant({ name: '  ' })).rejects.toMatchObject({ status: 400 });
  });

  it('creates a project with the four environments, found by id or by slug', async () => {
    const project = await newProject();
    expect(project).toMatchObject({ slug: 'support-bot', name: 'support-bot', settings: {} });
    expect(project.id).toMatch(/^proj_/);
    expect(project.environments).toEqual(['dev', 'staging', 'production', 'working-copy']);
    expect(await store.getProject(project.id)).toEqual(project);
    expect(await store.findProject(project.id)).toEqual(project);
    expect(await store.findProject(project.id, { tenantId: 'ten_other' })).toBeNull();
    expect(await store.findProject('support-bot', { tenantId: project.tenantId })).toEqual(project);
    expect(await store.findProject('nope')).toBeNull();
    expect(await store.getProject('proj_missing')).toBeNull();
  });

  it('keeps slugs unique within a tenant, not across tenants, and refuses an ambiguous slug', async () => {
    const slug = `shared-${Date.now()}`;
    const a = await newProject(slug);
    await expect(store.createProject({ tenantId: a.tenantId, slug })).rejects.toMatchObject({
      code: 'PROJECT_SLUG_TAKEN',
      status: 409,
    });
    expect(await store.findProject(slug)).toEqual(a);
    const b = await newProject(slug);
    expect(b.id).not.toBe(a.id);
    await expect(store.findProject(slug)).rejects.toMatchObject({ code: 'PROJECT_AMBIGUOUS' });
    expect(await store.findProject(slug, { tenantId: b.tenantId })).toEqual(b);
  });

  it('refuses bad slugs, unknown tenants and unknown environments', async () => {
    const tenant = await store.createTenant({ name: 'Acme' });
    for (const slug of ['', 'Upper', 'proj_x', '-lead', 'trail-', 'a b', 'x'.repeat(64)]) {
      await expect(store.createProject({ tenantId: tenant.id, slug })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
    }
    await expect(store.createProject({ tenantId: 'ten_missing', slug: 'ok' })).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
    await expect(
      // @ts-expect-error: an environment outside the four
      store.createProject({ tenantId: tenant.id, slug: 'ok', environments: ['qa'] }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const some = await store.createProject({
      tenantId: tenant.id,
      slug: 'two-envs',
      environments: ['production', 'dev'],
    });
    expect(some.environments).toEqual(['dev', 'production']);
  });

  it('merges settings and lists projects by tenant', async () => {
    const project = await newProject();
    const updated = await store.setProjectSettings(project.id, { reporting: { identityFields: true } });
    expect(updated.settings).toEqual({ reporting: { identityFields: true } });
    const again = await store.setProjectSettings(project.id, { payloads: { store: false } });
    expect(again.settings).toEqual({ reporting: { identityFields: true }, payloads: { store: false } });
    await expect(store.setProjectSettings('proj_missing', {})).rejects.toMatchObject({
      code: 'PROJECT_NOT_FOUND',
    });
    const second = await store.createProject({ tenantId: project.tenantId, slug: 'second', name: 'Second' });
    expect((await store.listProjects({ tenantId: project.tenantId })).map((p) => p.id)).toEqual([
      project.id,
      second.id,
    ]);
    expect((await store.listProjects()).length).toBeGreaterThanOrEqual(2);
  });

  it("tenantProjects: the tenant's own projects among those named; null for a tenant that does not exist", async () => {
    const a = await newProject('tp-a');
    const a2 = await store.createProject({ tenantId: a.tenantId, slug: 'tp-a2' });
    const b = await newProject('tp-b');
    expect(new Set(await store.tenantProjects(a.tenantId, [a.id, b.id, a2.id, 'proj_none']))).toEqual(
      new Set([a.id, a2.id]),
    );
    expect(await store.tenantProjects(b.tenantId, [a.id, a2.id])).toEqual([]);
    expect(await store.tenantProjects(a.tenantId, [])).toEqual([]);
    expect(await store.tenantProjects('ten_none', [a.id])).toBeNull();
  });

  it('tenantProjects with a cache: answers repeats from memory, unknown tenants included', async () => {
    const cached = createAuthStore(db.pool, { verifyCacheTtlMs: 60_000 });
    const a = await newProject('tp-cache');
    const queries: string[] = [];
    const original = db.pool.query.bind(db.pool);
    db.pool.query = ((...args: Parameters<typeof original>) => {
      queries.push(String(args[0]));
      return original(...args);
    }) as typeof db.pool.query;
    try {
      for (let i = 0; i < 3; i += 1) {
        expect(await cached.tenantProjects(a.tenantId, [a.id])).toEqual([a.id]);
        expect(await cached.tenantProjects('ten_made_up', [a.id])).toBeNull();
      }
    } finally {
      db.pool.query = original;
    }
    expect(queries).toHaveLength(2);
  });
});

describe('platform API keys', () => {
  it('creates a key once and verifies it to its project, tenant, scopes and permissions', async () => {
    const project = await newProject();
    const { key, record } = await store.createApiKey({
      projectId: project.id,
      name: 'reporting',
      scopes: ['analytics.read', 'recordings.read', 'analytics.read'],
    });
    expect(key).toMatch(/^plat_[0-9A-Za-z]+$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(record).toMatchObject({
      projectId: project.id,
      tenantId: project.tenantId,
      name: 'reporting',
      scopes: ['analytics.read', 'recordings.read'],
      status: 'active',
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(record.id).toMatch(/^key_/);
    expect(key.startsWith(record.displayPrefix.slice(0, -1))).toBe(true);
    expect(await store.verifyApiKey(key)).toEqual({
      ok: true,
      principal: {
        keyId: record.id,
        tenantId: project.tenantId,
        projectId: project.id,
        scopes: ['analytics.read', 'recordings.read'],
        permissions: ['session_summary:read', 'llm_ledger:read', 'recording:read'],
      },
    });
    expect((await store.getApiKey(record.id))?.lastUsedAt).toEqual(clock);
  });

  it('stores only a hash: no column of the row contains the key or its secret', async () => {
    const project = await newProject();
    const { key, record } = await store.createApiKey({ projectId: project.id, scopes: ['ingest.write'] });
    const { rows } = await db.pool.query('select * from api_keys where id = $1', [record.id]);
    const stored = JSON.stringify(rows[0], (_k, v) =>
      v?.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v,
    );
    const secret = key.slice(-20);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(key).toString('base64'));
    expect(stored).not.toContain(Buffer.from(key).toString('hex'));
    expect(Object.keys(rows[0])).toContain('key_hash');
    expect((rows[0] as { key_hash: Buffer }).key_hash).toHaveLength(32);
  });

  it('lists keys without the key or its hash, with their status', async () => {
    const project = await newProject();
    const a = await store.createApiKey({ projectId: project.id, scopes: ['analytics.read'] });
    const b = await store.createApiKey({ projectId: project.id, scopes: ['ingest.write'], name: 'ingest' });
    await store.revokeApiKey(b.record.id);
    const listed = await store.listApiKeys(project.id);
    expect(listed.map((k) => [k.id, k.name, k.status])).toEqual([
      [a.record.id, 'analytics.read', 'active'],
      [b.record.id, 'ingest', 'revoked'],
    ]);
    const text = JSON.stringify(listed);
    for (const key of [a.key, b.key]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(5 + 12));
    }
    expect(text).not.toMatch(/hash/i);
    expect(await store.listApiKeys('proj_none')).toEqual([]);
  });

  it('refuses unknown or missing scopes, past expiry and unknown projects', async () => {
    const project = await newProject();
    await expect(store.createApiKey({ projectId: project.id, scopes: [] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(
      store.createApiKey({ projectId: project.id, scopes: ['recording:read'] }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { unknown: ['recording:read'] } });
    await expect(
      store.createApiKey({ projectId: project.id, scopes: ['ingest.write'], expiresAt: clock }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      store.createApiKey({ projectId: 'proj_missing', scopes: ['ingest.write'] }),
    ).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND', status: 404 });
  });

  it('refuses malformed credentials without a lookup', async () => {
    const project = await newProject();
    const { key } = await store.createApiKey({ projectId: project.id, scopes: ['recordings.read'] });
    const malformed = [
      '',
      'plat_',
      key.slice(0, -1),
      `${key}A`,
      `pk_${key.slice(5)}`,
      `PLAT_${key.slice(5)}`,
      `${key.slice(0, -1)}=`,
      `Bearer ${key}`,
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln',
      'pk_live_0123456789abcdef',
      undefined,
      null,
    ];
    for (const raw of malformed) {
      expect(await store.verifyApiKey(raw)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('answers unknown for a well-formed key that was never issued, or a right prefix with a wrong secret', async () => {
    const project = await newProject();
    const { key } = await store.createApiKey({ projectId: project.id, scopes: ['recordings.read'] });
    const otherPrefix = `plat_${'A'.repeat(12)}${key.slice(17)}`;
    const wrongSecret = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    expect(await store.verifyApiKey(otherPrefix)).toEqual({ ok: false, reason: 'unknown' });
    expect(await store.verifyApiKey(wrongSecret)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('expires a key at its expiry time', async () => {
    const project = await newProject();
    const expiresAt = new Date(clock.getTime() + 60_000);
    const { key, record } = await store.createApiKey({
      projectId: project.id,
      scopes: ['analytics.read'],
      expiresAt,
    });
    expect(record.expiresAt).toEqual(expiresAt);
    expect((await store.verifyApiKey(key)).ok).toBe(true);
    const before = clock;
    try {
      clock = expiresAt;
      expect(await store.verifyApiKey(key)).toEqual({ ok: false, reason: 'expired' });
      expect((await store.getApiKey(record.id))?.status).toBe('expired');
    } finally {
      clock = before;
    }
  });

  it('revokes a key at once; revoking again keeps the first time; unknown ids give null', async () => {
    const project = await newProject();
    const { key, record } = await store.createApiKey({ projectId: project.id, scopes: ['analytics.read'] });
    expect((await store.verifyApiKey(key)).ok).toBe(true);
    const revoked = await store.revokeApiKey(record.id);
    expect(revoked).toMatchObject({ id: record.id, status: 'revoked', revokedAt: clock });
    expect(await store.verifyApiKey(key)).toEqual({ ok: false, reason: 'revoked' });
    const later = new Date(clock.getTime() + 1_000);
    const store2 = createAuthStore(db.pool, { now: () => later });
    expect((await store2.revokeApiKey(record.id))?.revokedAt).toEqual(clock);
    expect(await store.revokeApiKey('key_missing')).toBeNull();
  });

  it('with a verification cache, serves repeats from memory, still expires, and drops revoked keys', async () => {
    const project = await newProject();
    let t = new Date('2026-11-21T09:00:00Z');
    const cached = createAuthStore(db.pool, { now: () => t, verifyCacheTtlMs: 5_000 });
    const { key, record } = await cached.createApiKey({
      projectId: project.id,
      scopes: ['analytics.read'],
      expiresAt: new Date(t.getTime() + 3_000),
    });
    expect((await cached.verifyApiKey(key)).ok).toBe(true);
    // Revoked behind the cache's back (another process): still served until the TTL passes.
    await db.pool.query('update api_keys set revoked_at = now() where id = $1', [record.id]);
    expect((await cached.verifyApiKey(key)).ok).toBe(true);
    t = new Date(t.getTime() + 3_000);
    expect(await cached.verifyApiKey(key)).toEqual({ ok: false, reason: 'expired' });
    t = new Date(t.getTime() + 2_000);
    expect(await cached.verifyApiKey(key)).toEqual({ ok: false, reason: 'revoked' });

    const second = await cached.createApiKey({ projectId: project.id, scopes: ['ingest.write'] });
    expect((await cached.verifyApiKey(second.key)).ok).toBe(true);
    await cached.revokeApiKey(second.record.id);
    expect(await cached.verifyApiKey(second.key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('verify never throws on any string, and only a created key verifies', async () => {
    const project = await newProject();
    const { key } = await store.createApiKey({ projectId: project.id, scopes: ['ingest.write'] });
    const base62 = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');
    const candidates = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 80 }),
      // Well-formed keys that were never issued.
      fc.string({ unit: base62, minLength: 55, maxLength: 55 }).map((s) => `plat_${s}`),
      // The real key with one character changed.
      fc
        .tuple(fc.nat({ max: key.length - 1 }), base62)
        .map(([i, c]) => `${key.slice(0, i)}${c}${key.slice(i + 1)}`),
    );
    await fc.assert(
      fc.asyncProperty(candidates, async (raw) => {
        const result = await store.verifyApiKey(raw);
        expect(result.ok).toBe(raw === key);
        if (!result.ok) expect(['malformed', 'unknown']).toContain(result.reason);
      }),
      { numRuns: 300 },
    );
  });
});
