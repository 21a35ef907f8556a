import { randomBytes } from 'node:crypto';
import { authMigrations, createAuthStore } from '@parley/auth';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, credentialsKeyId } from '../crypto/keyring.js';
import { parseCallbackAllowlist } from '../httpAsync/callbackUrl.js';
import { channelsMigrations } from '../migrations.js';
import { LOOPBACK_API_BASE_URLS } from '../testing/loopbackApiBaseUrls.js';
import { CONNECTION_ERROR_THRESHOLD, type ConnectionStore, createConnectionStore } from './store.js';

let db: TestDatabase;
let store: ConnectionStore;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
const key = randomBytes(32);
const keyring = createKeyring(key);

const whatsapp = (identifier: string, extra: Record<string, unknown> = {}) => ({
  channelType: 'whatsapp',
  externalIdentifier: identifier,
  credentials: { accessToken: 'EAAG-access', appSecret: 'app-secret-1', verifyToken: `verify-${identifier}` },
  ...extra,
});

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsMigrations]);
  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  tenantId = tenant.id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  store = createConnectionStore(db.pool, keyring, { apiBaseUrl: LOOPBACK_API_BASE_URLS });
});
afterAll(async () => {
  await db?.close();
});

describe('connection store', () => {
  it('creates a connection with every field and stores credentials only as ciphertext', async () => {
    const created = await store.create(projectId, {
      channelType: 'slack',
      externalIdentifier: 'T0001:A0001',
      name: 'Support Slack',
      agentName: 'support',
      deploymentId: 'dep_1',
      credentials: { botToken: 'xoxb-secret-bot-token', signingSecret: 'signing-secret-value' },
      settings: { apiBaseUrl: 'http://127.0.0.1:9999/api' },
    });
    expect(created).toEqual({
      provider: null,
      id: expect.stringMatching(/^chc_[0-9A-Za-z]{16}$/),
      tenantId,
      projectId,
      channelType: 'slack',
      externalIdentifier: 'T0001:A0001',
      name: 'Support Slack',
      agentName: 'support',
      deploymentId: 'dep_1',
      active: true,
      status: 'active',
      credentialNames: ['botToken', 'signingSecret'],
      settings: { apiBaseUrl: 'http://127.0.0.1:9999/api' },
      webhookPath: '/api/v1/channels/slack/webhook/T0001%3AA0001',
      consecutiveFailures: 0,
      lastError: null,
      erroredAt: null,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    expect(JSON.stringify(created)).not.toContain('xoxb-secret');
    const { rows } = await db.pool.query('select * from channel_connections where id = $1', [created.id]);
    const raw = JSON.stringify(rows[0]);
    expect(raw).not.toContain('xoxb-secret-bot-token');
    expect(raw).not.toContain('signing-secret-value');
    expect(rows[0].credentials_key_id).toBe(credentialsKeyId(key));
    expect(rows[0].verify_token_sha256).toBeNull();
    expect(await store.get(projectId, created.id)).toEqual(created);
    expect(await store.get(otherProjectId, created.id)).toBeNull();

    const resolved = await store.resolve('slack', 'T0001:A0001');
    expect(resolved).toEqual({
      provider: null,
      id: created.id,
      tenantId,
      projectId,
      channelType: 'slack',
      externalIdentifier: 'T0001:A0001',
      agentName: 'support',
      deploymentId: 'dep_1',
      active: true,
      status: 'active',
      credentials: { botToken: 'xoxb-secret-bot-token', signingSecret: 'signing-secret-value' },
      settings: { apiBaseUrl: 'http://127.0.0.1:9999/api' },
    });
    expect(await store.resolveById(created.id)).toEqual(resolved);
    expect(await store.resolve('slack', 'T0001:A0002')).toBeNull();
    expect(await store.resolve('telegram', 'T0001:A0001')).toBeNull();
  });

  it('refuses unknown and non-connectable channel types, bad credentials and duplicates', async () => {
    await expect(
      store.create(projectId, { channelType: 'pigeon', externalIdentifier: 'x' }),
    ).rejects.toMatchObject({
      code: 'UNKNOWN_CHANNEL_TYPE',
      status: 400,
    });
    await expect(
      store.create(projectId, { channelType: 'web', externalIdentifier: 'x' }),
    ).rejects.toMatchObject({
      code: 'CHANNEL_TYPE_NOT_CONNECTABLE',
      status: 400,
    });
    await expect(
      store.create(projectId, {
        channelType: 'whatsapp',
        externalIdentifier: 'x',
        credentials: { accessToken: 'a', bogus: 'b' },
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
      status: 400,
      details: { missing: ['appSecret', 'verifyToken'], unknown: ['bogus'] },
    });
    await store.create(projectId, whatsapp('1555000'));
    await expect(store.create(otherProjectId, whatsapp('1555000'))).rejects.toMatchObject({
      code: 'CHANNEL_CONNECTION_EXISTS',
      status: 409,
    });
    await expect(store.create('prj_missing', whatsapp('1555001'))).rejects.toMatchObject({
      code: 'PROJECT_NOT_FOUND',
      status: 404,
    });
  });

  it('finds a connection by the hash of its verify token, active ones only', async () => {
    const c = await store.create(projectId, whatsapp('1555100'));
    const { rows } = await db.pool.query(
      'select verify_token_sha256 from channel_connections where id = $1',
      [c.id],
    );
    expect(rows[0].verify_token_sha256.toString('hex')).toHaveLength(64);
    expect((await store.findByVerifyToken('whatsapp', 'verify-1555100'))?.id).toBe(c.id);
    expect(await store.findByVerifyToken('whatsapp', 'verify-1555100x')).toBeNull();
    expect(await store.findByVerifyToken('messenger', 'verify-1555100')).toBeNull();
    await store.update(projectId, c.id, { active: false });
    expect(await store.findByVerifyToken('whatsapp', 'verify-1555100')).toBeNull();
    await store.update(projectId, c.id, { active: true, credentials: { verifyToken: 'rotated-token' } });
    expect(await store.findByVerifyToken('whatsapp', 'verify-1555100')).toBeNull();
    expect((await store.findByVerifyToken('whatsapp', 'rotated-token'))?.id).toBe(c.id);
  });

  it('updates fields, merges credentials and keeps required ones', async () => {
    const c = await store.create(projectId, whatsapp('1555200', { name: 'WA', agentName: 'a1' }));
    const updated = await store.update(projectId, c.id, {
      name: null,
      agentName: 'a2',
      deploymentId: 'dep_9',
      externalIdentifier: '1555201',
      settings: { note: 'x' },
      credentials: { appSecret: 'new-secret' },
    });
    expect(updated).toMatchObject({
      name: null,
      agentName: 'a2',
      deploymentId: 'dep_9',
      externalIdentifier: '1555201',
      settings: { note: 'x' },
      credentialNames: ['accessToken', 'appSecret', 'verifyToken'],
    });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(c.updatedAt.getTime());
    expect((await store.resolveById(c.id))?.credentials).toEqual({
      accessToken: 'EAAG-access',
      appSecret: 'new-secret',
      verifyToken: 'verify-1555200',
    });
    await expect(store.update(projectId, c.id, { credentials: { appSecret: null } })).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
    await expect(store.update(projectId, c.id, { externalIdentifier: '1555000' })).rejects.toMatchObject({
      code: 'CHANNEL_CONNECTION_EXISTS',
    });
    await expect(store.update(otherProjectId, c.id, { name: 'x' })).rejects.toMatchObject({
      code: 'CHANNEL_CONNECTION_NOT_FOUND',
      status: 404,
    });
    // Nothing changed by the refused updates.
    expect((await store.get(projectId, c.id))?.externalIdentifier).toBe('1555201');
  });

  it('turns `error` after repeated send failures and recovers on success or re-activation', async () => {
    const c = await store.create(projectId, whatsapp('1555300'));
    for (let i = 1; i < CONNECTION_ERROR_THRESHOLD; i++) {
      expect(await store.recordSendFailure(c.id, `HTTP 500 #${i}`)).toEqual({
        status: 'active',
        consecutiveFailures: i,
      });
    }
    expect(await store.recordSendFailure(c.id, 'HTTP 401 invalid token')).toEqual({
      status: 'error',
      consecutiveFailures: CONNECTION_ERROR_THRESHOLD,
    });
    const errored = await store.get(projectId, c.id);
    expect(errored).toMatchObject({
      status: 'error',
      active: true,
      lastError: { message: 'HTTP 401 invalid token', at: expect.any(Date) },
      erroredAt: expect.any(Date),
    });
    expect((await store.resolveById(c.id))?.status).toBe('error');
    await store.recordSendSuccess(c.id);
    expect(await store.get(projectId, c.id)).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
      erroredAt: null,
    });

    for (let i = 0; i < CONNECTION_ERROR_THRESHOLD; i++)
      await store.recordSendFailure(c.id, 'x'.repeat(2000));
    expect((await store.get(projectId, c.id))?.lastError?.message).toHaveLength(1000);
    expect((await store.update(projectId, c.id, { active: false })).status).toBe('inactive');
    expect((await store.update(projectId, c.id, { active: true })).status).toBe('active');
    expect(await store.recordSendFailure('chc_missing', 'x')).toBeNull();
  });

  it('lists oldest first with a total, and deletes', async () => {
    const { connections, total } = await store.list(projectId);
    expect(total).toBe(connections.length);
    const times = connections.map((c) => c.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const page = await store.list(projectId, { limit: 1, offset: 1 });
    expect(page).toEqual({ connections: [connections[1]], total });
    expect(await store.list(projectId, { limit: 10, offset: 1000 })).toEqual({ connections: [], total });
    expect(await store.list(otherProjectId)).toEqual({ connections: [], total: 0 });

    const first = connections[0]!;
    expect(await store.delete(otherProjectId, first.id)).toBe(false);
    expect(await store.delete(projectId, first.id)).toBe(true);
    expect(await store.delete(projectId, first.id)).toBe(false);
    expect(await store.resolveById(first.id)).toBeNull();
  });

  it('re-encrypts every connection under the new key after rotation', async () => {
    const before = await store.list(projectId, { limit: 200, offset: 0 });
    const expected = new Map(
      await Promise.all(
        before.connections.map(async (c) => [c.id, (await store.resolveById(c.id))?.credentials] as const),
      ),
    );
    const newKey = randomBytes(32);
    // Without the old key, old ciphertexts cannot be read.
    const newOnly = createConnectionStore(db.pool, createKeyring(newKey));
    await expect(newOnly.resolveById(before.connections[0]!.id)).rejects.toMatchObject({
      code: 'CREDENTIALS_KEY_UNKNOWN',
    });

    const rotated = createConnectionStore(db.pool, createKeyring(newKey, [key]));
    // Old ciphertexts read with the old key still in the ring.
    expect((await rotated.resolveById(before.connections[0]!.id))?.credentials).toEqual(
      expected.get(before.connections[0]!.id),
    );
    expect(await rotated.rotateCredentials({ batchSize: 2 })).toEqual({ reencrypted: before.total });
    expect(await rotated.rotateCredentials()).toEqual({ reencrypted: 0 });
    const { rows } = await db.pool.query<{ credentials_key_id: string }>(
      'select distinct credentials_key_id from channel_connections',
    );
    expect(rows).toEqual([{ credentials_key_id: credentialsKeyId(newKey) }]);
    for (const [id, credentials] of expected)
      expect((await newOnly.resolveById(id))?.credentials).toEqual(credentials);
  });

  it('does not decrypt a ciphertext copied to another connection', async () => {
    const a = await store.create(projectId, whatsapp('1555400'));
    const b = await store.create(projectId, whatsapp('1555401'));
    const mixed = createConnectionStore(db.pool, createKeyring(key, []));
    await db.pool.query(
      `update channel_connections set credentials_ciphertext = (select credentials_ciphertext from channel_connections where id = $1),
         credentials_key_id = (select credentials_key_id from channel_connections where id = $1) where id = $2`,
      [a.id, b.id],
    );
    await expect(mixed.resolveById(b.id)).rejects.toMatchObject({
      code: expect.stringMatching(/^CREDENTIALS_/),
    });
  });

  it('lets exactly one of concurrent creates with the same identifier win', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.create(projectId, whatsapp('1555500'))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'CHANNEL_CONNECTION_EXISTS' });
    }
  });
});

describe('settings.apiBaseUrl guard (SSRF)', () => {
  const lookup = async (host: string) =>
    host === 'gateway.internal'
      ? [{ address: '10.0.0.5', family: 4 as const }]
      : host === 'api.partner.example'
        ? [{ address: '93.184.216.34', family: 4 as const }]
        : [];
  const input = (apiBaseUrl: string, id: string) => whatsapp(`ssrf-${id}`, { settings: { apiBaseUrl } });

  it('refuses a host resolving to a private address or not resolving; accepts a public one (default guard)', async () => {
    const guarded = createConnectionStore(db.pool, keyring, { apiBaseUrl: { lookup } });
    await expect(
      guarded.create(projectId, input('https://gateway.internal/bot', 'g-1')),
    ).rejects.toMatchObject({
      name: 'ApiBaseUrlRefusedError',
      code: 'VALIDATION_ERROR',
      status: 400,
      details: { field: 'settings.apiBaseUrl', reason: 'forbidden_address' },
    });
    await expect(
      guarded.create(projectId, input('https://nowhere.invalid/bot', 'g-2')),
    ).rejects.toMatchObject({
      details: { reason: 'dns_failure' },
    });
    await expect(guarded.create(projectId, input('http://127.0.0.1:9999/api', 'g-3'))).rejects.toMatchObject({
      details: { reason: 'forbidden_address' },
    });
    const ok = await guarded.create(projectId, input('https://api.partner.example/bot', 'g-4'));
    await expect(
      guarded.update(projectId, ok.id, { settings: { apiBaseUrl: 'https://gateway.internal/bot' } }),
    ).rejects.toMatchObject({ details: { reason: 'forbidden_address' } });
    expect((await guarded.get(projectId, ok.id))?.settings).toEqual({
      apiBaseUrl: 'https://api.partner.example/bot',
    });
  });

  it('an allowlisted host may be private and plain http', async () => {
    const allowing = createConnectionStore(db.pool, keyring, {
      apiBaseUrl: { lookup, allowlist: parseCallbackAllowlist('gateway.internal') },
    });
    const created = await allowing.create(projectId, input('http://gateway.internal:8080/bot', 'g-5'));
    expect(created.settings).toEqual({ apiBaseUrl: 'http://gateway.internal:8080/bot' });
  });
});
