import { authMigrations, createAuthStore } from '@parley/auth';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

const run = (args: string[], databaseUrl: string, timeoutMs = 60_000): Promise<CliRun> =>
  runCli(args, cleanEnv({ DATABASE_URL: databaseUrl }), timeoutMs);

async function runJson<T>(args: string[], url: string): Promise<T> {
  const result = await run([...args, '--json'], url);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe('parley tenants, projects and keys', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('creates a tenant, a project and a key, lists and revokes it', async () => {
    const tenant = await runJson<{ id: string }>(['tenants', 'create', '--name', 'Acme'], db.url);
    expect(tenant.id).toMatch(/^ten_/);
    const project = await runJson<{ id: string; slug: string }>(
      ['projects', 'create', '--tenant', tenant.id, '--slug', 'support-bot', '--name', 'Support bot'],
      db.url,
    );
    expect(project).toMatchObject({ slug: 'support-bot', name: 'Support bot', tenantId: tenant.id });

    const created = await runJson<{ id: string; key: string; scopes: string[]; expiresAt: string }>(
      [
        'keys',
        'create',
        '--project',
        'support-bot',
        '--scope',
        'analytics.read,recordings.read',
        '--scope',
        'ingest.write',
        '--name',
        'reporting',
        '--expires-in',
        '30d',
      ],
      db.url,
    );
    expect(created.key).toMatch(/^plat_[0-9A-Za-z]{55}$/);
    expect(created.scopes).toEqual(['analytics.read', 'recordings.read', 'ingest.write']);
    const days = (Date.parse(created.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    // The plain form: the key alone on stdout, the warning on stderr.
    const plain = await run(['keys', 'create', '--project', project.id, '--scope', 'ingest.write'], db.url);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^plat_[0-9A-Za-z]{55}$/);
    expect(plain.stderr).toMatch(/shown only now/);

    // The key the CLI printed verifies against the same database.
    const store = createAuthStore(db.pool);
    const verified = await store.verifyApiKey(created.key);
    expect(verified).toMatchObject({ ok: true, principal: { keyId: created.id, projectId: project.id } });

    const table = await run(['keys', 'list', '--project', project.id], db.url);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^id\s+name\s+key\s+scopes\s+status/);
    expect(table.stdout).toContain(created.id);
    expect(table.stdout).toContain(`${created.key.slice(0, 17)}…`);
    expect(table.stdout).not.toContain(created.key);
    const listed = await runJson<Array<{ id: string; status: string }>>(
      ['keys', 'list', '--project', 'support-bot'],
      db.url,
    );
    expect(listed.map((k) => k.status)).toEqual(['active', 'active']);
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(17));

    const revoked = await run(['keys', 'revoke', created.id], db.url);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`revoked ${created.id}`));
    expect(await store.verifyApiKey(created.key)).toEqual({ ok: false, reason: 'revoked' });
    const after = await runJson<Array<{ id: string; status: string }>>(
      ['keys', 'list', '--project', project.id],
      db.url,
    );
    expect(after.find((k) => k.id === created.id)?.status).toBe('revoked');

    const projects = await run(['projects', 'list', '--tenant', tenant.id], db.url);
    expect(projects.stdout).toContain(project.id);

    // The HTTP async submit scope (spec 001 §5 item 1) grants only http_async:submit.
    const submit = await runJson<{ key: string; scopes: string[] }>(
      ['keys', 'create', '--project', project.id, '--scope', 'channels.http_async'],
      db.url,
    );
    expect(submit.scopes).toEqual(['channels.http_async']);
    const submitter = await store.verifyApiKey(submit.key);
    expect(submitter.ok && submitter.principal.permissions).toEqual(['http_async:submit']);
  }, 120_000);

  it('refuses bad input with exit code 2 and a message', async () => {
    // Migrated through the CLI, so this test also runs on its own.
    expect((await run(['migrate'], db.url)).code).toBe(0);
    const store = createAuthStore(db.pool);
    const tenant = await store.createTenant({ name: 'Bad input' });
    const project = await store.createProject({ tenantId: tenant.id, slug: 'dup' });
    const cases: Array<[string[], RegExp]> = [
      [['projects', 'create', '--tenant', tenant.id, '--slug', 'dup'], /already has a project with slug dup/],
      [['projects', 'create', '--tenant', 'ten_missing', '--slug', 'x'], /no tenant ten_missing/],
      [['projects', 'create', '--tenant', tenant.id, '--slug', 'Not_A_Slug'], /slug/],
      [['keys', 'create', '--project', project.id, '--scope', 'admin'], /unknown scope admin/],
      [['keys', 'create', '--project', project.id], /--scope is required/],
      [
        ['keys', 'create', '--project', 'nope', '--scope', 'ingest.write'],
        /no project with id or slug "nope"/,
      ],
      [
        ['keys', 'create', '--project', project.id, '--scope', 'ingest.write', '--expires-in', 'soon'],
        /--expires-in/,
      ],
      [['keys', 'revoke', 'key_missing'], /no API key key_missing/],
    ];
    for (const [args, message] of cases) {
      const result = await run(args, db.url);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  }, 120_000);
});

// The migration set the CLI applies is the package's own.
it('registers the auth migration set', async () => {
  const { migrationSets } = await import('./registry.js');
  expect(migrationSets).toContain(authMigrations);
});
