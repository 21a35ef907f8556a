import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createKeyring, credentialsKeyId, type MigrationSet, migrate } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyAccountStore } from './accountStore.js';
import { telephonyMigrations } from './migrations.js';

let db: TestDatabase;
let auth: AuthStore;
let n = 0;

// The telephony set as it was before issue 17: auth tokens in clear.
const telephonyBefore: MigrationSet = {
  name: telephonyMigrations.name,
  migrations: telephonyMigrations.migrations.filter((m) => m.id === '0001_telephony'),
};

beforeAll(async () => {
  db = await createTestDatabase();
  await migrate(db.pool, [authMigrations, telephonyBefore]);
  auth = createAuthStore(db.pool);
});
afterAll(() => db.close());

async function newProject(): Promise<string> {
  n += 1;
  const tenant = await auth.createTenant({ name: `phone ${n}` });
  return (await auth.createProject({ tenantId: tenant.id, slug: `phone-${n}` })).id;
}

/** Every column of every row, as text: what someone who reads the table sees. */
async function rawTable(): Promise<string> {
  const { rows } = await db.pool.query('select *, to_jsonb(t)::text as as_json from telephony_accounts t');
  return rows
    .map((row: Record<string, unknown>) =>
      Object.values(row)
        .map((v) => (Buffer.isBuffer(v) ? `${v.toString('hex')} ${v.toString('latin1')}` : String(v)))
        .join(' '),
    )
    .join('\n');
}

describe('telephony account secrets at rest (issue 17)', () => {
  // The rows of before the migration, stored in clear by the old schema.
  const legacy = [
    { sid: 'AC_legacy_1', token: 'legacy-token-0123456789', password: null },
    { sid: 'AC_legacy_2', token: 'legacy-token-abcdefghij', password: 'legacy-recording-pass' },
  ];

  it('migration 0002 and its data step encrypt the rows stored in clear before it', async () => {
    const projectId = await newProject();
    for (const row of legacy) {
      await db.pool.query(
        `insert into telephony_accounts (account_sid, tenant_id, project_id, auth_token, recording_username,
           recording_password)
         select $1, tenant_id, id, $3, $4, $5 from projects where id = $2`,
        [row.sid, projectId, row.token, row.password === null ? null : 'recorder', row.password],
      );
    }
    expect(await rawTable()).toContain('legacy-token-0123456789');

    await migrate(db.pool, [authMigrations, telephonyMigrations]);
    const keyring = createKeyring(randomBytes(32));
    const store = createTelephonyAccountStore(db.pool, keyring);
    // Until the data step runs the old rows still work.
    expect((await store.secrets('AC_legacy_1'))?.authToken).toBe('legacy-token-0123456789');
    expect(await store.countByKeyId()).toEqual({ clear: 2 });

    expect(await store.sealSecrets({ onlyClear: true })).toEqual({ sealed: 2 });
    const raw = await rawTable();
    for (const secret of ['legacy-token-0123456789', 'legacy-token-abcdefghij', 'legacy-recording-pass']) {
      expect(raw).not.toContain(secret);
    }
    expect(await store.countByKeyId()).toEqual({ [keyring.currentKeyId]: 2 });
    expect(await store.secrets('AC_legacy_2')).toMatchObject({
      authToken: 'legacy-token-abcdefghij',
      recordingCredentials: { username: 'recorder', password: 'legacy-recording-pass' },
    });
    expect((await store.secrets('AC_legacy_1'))?.recordingCredentials).toEqual({
      username: 'AC_legacy_1',
      password: 'legacy-token-0123456789',
    });
    expect(await store.sealSecrets({ onlyClear: true })).toEqual({ sealed: 0 });
  });

  it('add stores no clear secret; without a key it refuses rather than store one', async () => {
    const projectId = await newProject();
    const store = createTelephonyAccountStore(db.pool, createKeyring(randomBytes(32)));
    await store.add({
      accountSid: 'AC_new_1',
      projectId,
      authToken: 'fresh-token-9876543210',
      recordingUsername: 'SK_rec',
      recordingPassword: 'fresh-recording-pass',
    });
    const raw = await rawTable();
    expect(raw).toContain('AC_new_1');
    expect(raw).not.toContain('fresh-token-9876543210');
    expect(raw).not.toContain('fresh-recording-pass');
    expect(await store.secrets('AC_new_1')).toMatchObject({
      authToken: 'fresh-token-9876543210',
      recordingCredentials: { username: 'SK_rec', password: 'fresh-recording-pass' },
    });

    await expect(
      createTelephonyAccountStore(db.pool, null).add({ accountSid: 'AC_new_2', projectId, authToken: 't' }),
    ).rejects.toMatchObject({ code: 'CREDENTIALS_KEY_REQUIRED', status: 503 });
    expect(await rawTable()).not.toContain('AC_new_2');
  });

  it('a ciphertext copied to another account does not decrypt; a wrong key is refused', async () => {
    const projectId = await newProject();
    const keyring = createKeyring(randomBytes(32));
    const store = createTelephonyAccountStore(db.pool, keyring);
    await store.add({ accountSid: 'AC_copy_a', projectId, authToken: 'token-of-a' });
    await store.add({ accountSid: 'AC_copy_b', projectId, authToken: 'token-of-b' });
    await db.pool.query(
      `update telephony_accounts set auth_token_ciphertext =
         (select auth_token_ciphertext from telephony_accounts where account_sid = 'AC_copy_a')
       where account_sid = 'AC_copy_b'`,
    );
    await expect(store.secrets('AC_copy_b')).rejects.toMatchObject({ code: 'CREDENTIALS_DECRYPT_FAILED' });
    const stranger = createTelephonyAccountStore(db.pool, createKeyring(randomBytes(32)));
    await expect(stranger.secrets('AC_copy_a')).rejects.toMatchObject({ code: 'CREDENTIALS_KEY_UNKNOWN' });
  });

  it('rotates with the channel keyring: old key in CHANNEL_CREDENTIALS_KEYS decrypts, sealSecrets re-encrypts', async () => {
    // Rotation is table-wide: the other tests' rows are under keys this ring does not hold.
    await db.pool.query('delete from telephony_accounts');
    const projectId = await newProject();
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    await createTelephonyAccountStore(db.pool, createKeyring(oldKey)).add({
      accountSid: 'AC_rotate',
      projectId,
      authToken: 'rotating-token',
    });
    const rotated = createTelephonyAccountStore(db.pool, createKeyring(newKey, [oldKey]));
    expect((await rotated.secrets('AC_rotate'))?.authToken).toBe('rotating-token');
    // The start-up step leaves rows under an older key alone; the rotation command moves them.
    expect((await rotated.sealSecrets({ onlyClear: true })).sealed).toBe(0);
    expect(await rotated.sealSecrets()).toEqual({ sealed: 1 });
    const { rows } = await db.pool.query<{ secrets_key_id: string }>(
      `select secrets_key_id from telephony_accounts where account_sid = 'AC_rotate'`,
    );
    expect(rows[0]?.secrets_key_id).toBe(credentialsKeyId(newKey));
    const onlyNew = createTelephonyAccountStore(db.pool, createKeyring(newKey));
    expect((await onlyNew.secrets('AC_rotate'))?.authToken).toBe('rotating-token');
  });
});
