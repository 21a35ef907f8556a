import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsDecryptError, createKeyring, credentialsKeyId } from '../crypto/keyring.js';
import { channelInboundMigrations } from '../inbound/migrations.js';
import { checkCallbackUrl, type LookupFn, parseCallbackAllowlist } from './callbackUrl.js';
import { httpAsyncMigrations } from './migrations.js';
import {
  CallbackUrlRefusedError,
  SecretRotationError,
  type SubscriptionInput,
  SubscriptionNotFoundError,
} from './subscriptionSchema.js';
import {
  type CheckSubscriptionUrl,
  createSubscriptionStore,
  type SubscriptionStore,
} from './subscriptionStore.js';

let db: TestDatabase;
let auth: AuthStore;
let store: SubscriptionStore;
const key = randomBytes(32);
const keyring = createKeyring(key);

// Names resolve here, never through real DNS: the guard sees exactly these addresses.
const zone: Record<string, string[]> = {
  'receiver.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'other.example': ['93.184.215.15'],
  'intranet.example': ['10.1.2.3'],
  'half.example': ['93.184.215.14', '127.0.0.1'],
  'receiver.test': ['127.0.0.1'],
};
const lookup: LookupFn = async (host) => {
  const addresses = zone[host];
  if (addresses === undefined) throw new Error('ENOTFOUND');
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const allowlist = parseCallbackAllowlist('receiver.test,127.0.0.2/32');
const checkUrl: CheckSubscriptionUrl = (url) => checkCallbackUrl(url, { allowlist, lookup });

// Loosely typed on purpose: the invalid-input cases pass what a JSON caller could.
const input = (extra: Record<string, unknown> = {}) =>
  ({
    displayName: 'Order bot',
    callbackUrl: 'https://receiver.example/hooks/parley',
    events: ['agent.response'],
    ...extra,
  }) as SubscriptionInput;

let projects = 0;
const freshProject = async () => {
  projects += 1;
  const tenant = await auth.createTenant({ name: `subs ${projects}` });
  const project = await auth.createProject({ tenantId: tenant.id, slug: `subs-${projects}` });
  return { tenantId: tenant.id, projectId: project.id };
};
const rowOf = async (id: string) =>
  (await db.pool.query('select * from http_async_subscriptions where id = $1', [id])).rows[0];
const refusal = (err: unknown) => (err instanceof CallbackUrlRefusedError ? err.reason : err);

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelInboundMigrations, httpAsyncMigrations]);
  auth = createAuthStore(db.pool);
  store = createSubscriptionStore(db.pool, keyring, { checkUrl });
});
afterAll(async () => {
  await db?.close();
});

describe('subscription store', () => {
  it('creates an HMAC subscription with every field; the generated secret is returned once and stored encrypted', async () => {
    const { tenantId, projectId } = await freshProject();
    const created = await store.create(
      projectId,
      input({ events: ['agent.media', 'agent.response', 'agent.media'] }),
    );
    expect(created.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(created.secret!, 'base64url')).toHaveLength(32);
    expect(created.subscription).toEqual({
      id: expect.stringMatching(/^sub_[0-9A-Za-z]{16}$/),
      tenantId,
      projectId,
      displayName: 'Order bot',
      callbackUrl: 'https://receiver.example/hooks/parley',
      events: ['agent.response', 'agent.media'],
      status: 'active',
      authMode: 'hmac',
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    const id = created.subscription.id;
    const row = await rowOf(id);
    expect(row.secret_key_id).toBe(credentialsKeyId(key));
    expect(JSON.stringify(row)).not.toContain(created.secret);
    expect(row.secret_ciphertext.toString('latin1')).not.toContain(created.secret);
    expect(await store.resolve(id)).toEqual({ ...created.subscription, secret: created.secret });
    expect(await store.get(projectId, id)).toEqual(created.subscription);
  });

  it('binds a ciphertext to its subscription (the id is the associated data)', async () => {
    const { projectId } = await freshProject();
    const a = await store.create(projectId, input());
    const b = await store.create(projectId, input());
    await db.pool.query(
      `update http_async_subscriptions set secret_ciphertext = (select secret_ciphertext from http_async_subscriptions
       where id = $1) where id = $2`,
      [a.subscription.id, b.subscription.id],
    );
    await expect(store.resolve(b.subscription.id)).rejects.toBeInstanceOf(CredentialsDecryptError);
    // Deleting erases the broken ciphertext, so key rotation below does not trip over it.
    await store.delete(projectId, b.subscription.id);
  });

  it('stores a bearer token given by the caller and never returns it', async () => {
    const { projectId } = await freshProject();
    const token = randomBytes(24).toString('base64url');
    const created = await store.create(
      projectId,
      input({ authMode: 'bearer', bearerToken: token, status: 'paused' }),
    );
    expect(created.secret).toBeUndefined();
    expect(created.subscription).toMatchObject({ authMode: 'bearer', status: 'paused' });
    expect(JSON.stringify(created)).not.toContain(token);
    expect((await rowOf(created.subscription.id)).secret_ciphertext.toString('latin1')).not.toContain(token);
    expect((await store.resolve(created.subscription.id))?.secret).toBe(token);
  });

  it('refuses invalid input before touching the database', async () => {
    const { projectId } = await freshProject();
    const bad = [
      input({ authMode: 'bearer' }),
      input({ bearerToken: 'a'.repeat(32) }),
      input({ authMode: 'bearer', bearerToken: 'short' }),
      input({ authMode: 'bearer', bearerToken: `${'a'.repeat(20)} b` }),
      input({ events: [] }),
      input({ events: ['agent.typing'] }),
      input({ displayName: '  ' }),
      input({ displayName: 'x'.repeat(201) }),
      input({ callbackUrl: 'not a url' }),
      input({ status: 'deleted' }),
      input({ extra: 1 }),
    ];
    for (const payload of bad)
      await expect(store.create(projectId, payload), JSON.stringify(payload)).rejects.toThrow();
    expect((await store.list(projectId)).total).toBe(0);
  });

  it('refuses private, loopback and non-https callback URLs unless allowlisted', async () => {
    const { projectId } = await freshProject();
    const refused: Array<[string, string]> = [
      ['https://10.0.0.7/hook', 'forbidden_address'],
      ['https://127.0.0.1/hook', 'forbidden_address'],
      ['https://[::1]/hook', 'forbidden_address'],
      ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
      ['https://[::ffff:192.168.1.1]/hook', 'forbidden_address'],
      ['https://intranet.example/hook', 'forbidden_address'],
      ['https://half.example/hook', 'forbidden_address'],
      ['https://unknown.example/hook', 'dns_failure'],
      ['http://receiver.example/hook', 'insecure_scheme'],
      ['ftp://receiver.example/hook', 'unsupported_scheme'],
      ['https://user:pw@receiver.example/hook', 'credentials_in_url'],
    ];
    for (const [url, reason] of refused) {
      const err = await store.create(projectId, input({ callbackUrl: url })).catch((e: unknown) => e);
      expect(refusal(err), url).toBe(reason);
      expect((err as CallbackUrlRefusedError).code).toBe('CALLBACK_URL_REFUSED');
      expect((err as CallbackUrlRefusedError).details).toEqual({ reason });
      expect((err as Error).message).not.toContain('pw');
    }
    // Fits before parsing, not after percent-encoding: refused, not a database error.
    const spaced = `https://receiver.example/${' '.repeat(1000)}end`;
    expect(
      refusal(await store.create(projectId, input({ callbackUrl: spaced })).catch((e: unknown) => e)),
    ).toBe('url_too_long');
    expect((await store.list(projectId)).total).toBe(0);
    // The allowlist (what tests use for loopback receivers) admits a host name and an address range, http too.
    for (const url of ['http://receiver.test:8443/hook', 'https://127.0.0.2:9000/hook']) {
      const created = await store.create(projectId, input({ callbackUrl: url }));
      expect(created.subscription.callbackUrl).toBe(url);
    }
  });

  it('updates only the given fields, re-checking a changed callback URL', async () => {
    const { projectId } = await freshProject();
    const { subscription } = await store.create(projectId, input());
    const renamed = await store.update(projectId, subscription.id, {
      displayName: '  Billing bot ',
      events: ['agent.status', 'agent.response'],
      status: 'paused',
    });
    expect(renamed).toEqual({
      ...subscription,
      displayName: 'Billing bot',
      events: ['agent.response', 'agent.status'],
      status: 'paused',
      updatedAt: expect.any(Date),
    });
    expect(renamed.updatedAt.getTime()).toBeGreaterThanOrEqual(subscription.updatedAt.getTime());
    const err = await store
      .update(projectId, subscription.id, { callbackUrl: 'https://10.9.9.9/x' })
      .catch((e: unknown) => e);
    expect(refusal(err)).toBe('forbidden_address');
    expect((await store.get(projectId, subscription.id))?.callbackUrl).toBe(subscription.callbackUrl);
    const moved = await store.update(projectId, subscription.id, {
      callbackUrl: 'https://other.example/v2',
      status: 'active',
    });
    expect(moved).toMatchObject({
      callbackUrl: 'https://other.example/v2',
      status: 'active',
      displayName: 'Billing bot',
    });
    await expect(
      store.update(projectId, 'sub_0000000000000000', { status: 'paused' }),
    ).rejects.toBeInstanceOf(SubscriptionNotFoundError);
    // Not found wins over a refused URL.
    await expect(
      store.update(projectId, 'sub_0000000000000000', { callbackUrl: 'https://10.0.0.1/' }),
    ).rejects.toBeInstanceOf(SubscriptionNotFoundError);
    await expect(store.update(projectId, subscription.id, { status: 'deleted' } as never)).rejects.toThrow();
  });

  it('deletes for good: hidden, secret erased, never reactivated', async () => {
    const { projectId } = await freshProject();
    const { subscription } = await store.create(projectId, input());
    const kept = await store.create(projectId, input({ displayName: 'kept' }));
    expect(await store.delete(projectId, subscription.id)).toBe(true);
    expect(await store.delete(projectId, subscription.id)).toBe(false);
    expect(await store.get(projectId, subscription.id)).toBeNull();
    expect(await store.resolve(subscription.id)).toBeNull();
    expect(await store.list(projectId)).toEqual({ subscriptions: [kept.subscription], total: 1 });
    expect(await store.activeFor(projectId, 'agent.response')).toEqual([
      { ...kept.subscription, secret: kept.secret },
    ]);
    const row = await rowOf(subscription.id);
    expect(row).toMatchObject({ status: 'deleted', secret_key_id: null, secret_ciphertext: null });
    expect(row.deleted_at).toBeInstanceOf(Date);
    await expect(store.update(projectId, subscription.id, { status: 'active' })).rejects.toBeInstanceOf(
      SubscriptionNotFoundError,
    );
    await expect(store.rotateSecret(projectId, subscription.id)).rejects.toBeInstanceOf(
      SubscriptionNotFoundError,
    );
    expect((await rowOf(subscription.id)).status).toBe('deleted');
  });

  it('rotates an HMAC secret (generated) and a bearer token (given)', async () => {
    const { projectId } = await freshProject();
    const hmac = await store.create(projectId, input());
    const rotated = await store.rotateSecret(projectId, hmac.subscription.id);
    expect(rotated.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(hmac.secret);
    expect(rotated.subscription).toEqual({ ...hmac.subscription, updatedAt: expect.any(Date) });
    expect((await store.resolve(hmac.subscription.id))?.secret).toBe(rotated.secret);
    await expect(
      store.rotateSecret(projectId, hmac.subscription.id, { bearerToken: 'a'.repeat(32) }),
    ).rejects.toBeInstanceOf(SecretRotationError);

    const bearer = await store.create(
      projectId,
      input({ authMode: 'bearer', bearerToken: 'first-token-0123456789' }),
    );
    await expect(store.rotateSecret(projectId, bearer.subscription.id)).rejects.toBeInstanceOf(
      SecretRotationError,
    );
    const next = await store.rotateSecret(projectId, bearer.subscription.id, {
      bearerToken: 'second-token-0123456789',
    });
    expect(next.secret).toBeUndefined();
    expect((await store.resolve(bearer.subscription.id))?.secret).toBe('second-token-0123456789');
    const { projectId: other } = await freshProject();
    await expect(store.rotateSecret(other, hmac.subscription.id)).rejects.toBeInstanceOf(
      SubscriptionNotFoundError,
    );
  });

  it('keeps projects apart and pages oldest first', async () => {
    const { projectId } = await freshProject();
    const { projectId: other } = await freshProject();
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push((await store.create(projectId, input({ displayName: `s${i}` }))).subscription);
    expect(await store.get(other, made[0]!.id)).toBeNull();
    expect(await store.delete(other, made[0]!.id)).toBe(false);
    await expect(store.update(other, made[0]!.id, { displayName: 'x' })).rejects.toBeInstanceOf(
      SubscriptionNotFoundError,
    );
    expect(await store.list(other)).toEqual({ subscriptions: [], total: 0 });
    expect(await store.list(projectId, { limit: 2, offset: 1 })).toEqual({
      subscriptions: made.slice(1),
      total: 3,
    });
    expect(await store.list(projectId, { limit: 2, offset: 5 })).toEqual({ subscriptions: [], total: 3 });
    await expect(store.create('prj_missing', input())).rejects.toMatchObject({ code: 'PROJECT_NOT_FOUND' });
  });

  it('fans out an event type to the project’s active subscribers only', async () => {
    const { projectId } = await freshProject();
    const { projectId: other } = await freshProject();
    const both = await store.create(projectId, input({ events: ['agent.response', 'agent.status'] }));
    const media = await store.create(projectId, input({ events: ['agent.media'] }));
    const paused = await store.create(projectId, input({ status: 'paused' }));
    await store.create(other, input());
    const ids = async (event: 'agent.response' | 'agent.status' | 'agent.media') =>
      (await store.activeFor(projectId, event)).map((s) => s.id);
    expect(await ids('agent.response')).toEqual([both.subscription.id]);
    expect(await ids('agent.status')).toEqual([both.subscription.id]);
    expect(await ids('agent.media')).toEqual([media.subscription.id]);
    expect((await store.activeFor(projectId, 'agent.media'))[0]?.secret).toBe(media.secret);
    await store.update(projectId, paused.subscription.id, { status: 'active' });
    expect(await ids('agent.response')).toEqual([both.subscription.id, paused.subscription.id]);
  });

  it('re-encrypts secrets under the current key, in batches, skipping deleted subscriptions', async () => {
    const { projectId } = await freshProject();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await store.create(projectId, input()));
    const gone = await store.create(projectId, input());
    await store.delete(projectId, gone.subscription.id);
    const newKey = randomBytes(32);
    const rotatedStore = createSubscriptionStore(db.pool, createKeyring(newKey, [key]), { checkUrl });
    const { reencrypted } = await rotatedStore.reencryptSecrets({ batchSize: 2 });
    // Other tests' subscriptions share the table: at least these three, all of them now under the new key.
    expect(reencrypted).toBeGreaterThanOrEqual(3);
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from http_async_subscriptions where secret_key_id is not null and secret_key_id <> $1',
      [credentialsKeyId(newKey)],
    );
    expect(rows[0]?.n).toBe(0);
    const newOnly = createSubscriptionStore(db.pool, createKeyring(newKey), { checkUrl });
    for (const m of made) expect((await newOnly.resolve(m.subscription.id))?.secret).toBe(m.secret);
    expect((await rowOf(gone.subscription.id)).secret_key_id).toBeNull();
    expect(await rotatedStore.reencryptSecrets()).toEqual({ reencrypted: 0 });
  });
});
