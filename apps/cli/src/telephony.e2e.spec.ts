import { randomBytes } from 'node:crypto';
import { createKeyring } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createTelephonyAccountStore } from '@parley/telephony';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

// Telephony auth tokens are stored encrypted under the channel credentials key (issue 17).
const KEY = randomBytes(32);
const keyring = createKeyring(KEY);

const run = (args: string[], databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<CliRun> =>
  runCli(
    args,
    cleanEnv({ DATABASE_URL: databaseUrl, CHANNEL_CREDENTIALS_KEY: KEY.toString('base64'), ...extraEnv }),
    60_000,
  );

describe('parley telephony accounts', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('adds (token from the environment), lists without secrets, refuses duplicates, removes', async () => {
    const tenant = JSON.parse((await run(['tenants', 'create', '--name', 'Acme', '--json'], db.url)).stdout);
    const created = await run(
      ['projects', 'create', '--tenant', tenant.id, '--slug', 'voice', '--json'],
      db.url,
    );
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);

    const added = await run(
      ['telephony', 'accounts', 'add', '--account-sid', 'AC_cli_1', '--project', 'voice', '--json'],
      db.url,
      {
        TELEPHONY_AUTH_TOKEN: 'cli-secret-token',
      },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      accountSid: 'AC_cli_1',
      projectId: project.id,
      hasRecordingCredentials: false,
    });
    expect(added.stdout).not.toContain('cli-secret-token');
    expect((await createTelephonyAccountStore(db.pool, keyring).secrets('AC_cli_1'))?.authToken).toBe(
      'cli-secret-token',
    );
    const { rows } = await db.pool.query(`select to_jsonb(t)::text as row from telephony_accounts t`);
    expect(rows).toHaveLength(1);
    expect(rows[0].row).not.toContain('cli-secret-token');

    const withoutKey = await run(
      ['telephony', 'accounts', 'add', '--account-sid', 'AC_cli_3', '--project', 'voice'],
      db.url,
      { TELEPHONY_AUTH_TOKEN: 'cli-secret-token', CHANNEL_CREDENTIALS_KEY: '' },
    );
    expect(withoutKey.code).toBe(2);
    expect(withoutKey.stderr).toMatch(/CHANNEL_CREDENTIALS_KEY is not set/);

    const missingToken = await run(
      ['telephony', 'accounts', 'add', '--account-sid', 'AC_cli_2', '--project', 'voice'],
      db.url,
    );
    expect(missingToken.code).toBe(2);
    expect(missingToken.stderr).toMatch(/TELEPHONY_AUTH_TOKEN/);
    const duplicate = await run(
      [
        'telephony',
        'accounts',
        'add',
        '--account-sid',
        'AC_cli_1',
        '--project',
        'voice',
        '--auth-token',
        'x',
      ],
      db.url,
    );
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/already registered/);

    const listed = await run(['telephony', 'accounts', 'list', '--project', 'voice'], db.url);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/AC_cli_1/);
    expect(listed.stdout).not.toContain('cli-secret-token');

    expect((await run(['telephony', 'accounts', 'remove', 'AC_cli_1'], db.url)).code).toBe(0);
    expect((await run(['telephony', 'accounts', 'remove', 'AC_cli_1'], db.url)).code).toBe(2);
    expect(JSON.parse((await run(['telephony', 'accounts', 'list', '--json'], db.url)).stdout)).toEqual([]);
  });

  it('`parley migrate` encrypts the accounts stored in clear before issue 17', async () => {
    const project = JSON.parse((await run(['projects', 'list', '--json'], db.url)).stdout)[0];
    // A row as the schema before migration 0002 held it: the auth token in clear.
    await db.pool.query(
      `insert into telephony_accounts (account_sid, tenant_id, project_id, auth_token)
       values ('AC_cli_old', $1, $2, 'clear-old-token-42')`,
      [project.tenantId, project.id],
    );
    const migrated = await run(['migrate'], db.url);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('encrypted the secrets of 1 telephony account(s)');
    const { rows } = await db.pool.query(`select to_jsonb(t)::text as row from telephony_accounts t`);
    expect(rows.map((r) => r.row).join('\n')).not.toContain('clear-old-token-42');
    expect((await createTelephonyAccountStore(db.pool, keyring).secrets('AC_cli_old'))?.authToken).toBe(
      'clear-old-token-42',
    );
  });
});
