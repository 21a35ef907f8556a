import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createTelephonyAccountStore } from '@parley/telephony';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

const run = (args: string[], databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, cleanEnv({ DATABASE_URL: databaseUrl, ...extraEnv }), 60_000);

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
    expect((await createTelephonyAccountStore(db.pool).secrets('AC_cli_1'))?.authToken).toBe(
      'cli-secret-token',
    );

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
});
