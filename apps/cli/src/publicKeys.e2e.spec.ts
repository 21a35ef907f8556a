import { authMigrations, createAuthStore } from '@parley/auth';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

const run = (args: string[], databaseUrl: string): Promise<CliRun> =>
  runCli(args, cleanEnv({ DATABASE_URL: databaseUrl }), 60_000);

describe('parley keys create-public, list-public, revoke-public', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([authMigrations]);
  });
  afterAll(() => db.close());

  it('creates a public key for some origins, lists it and revokes it (one run per command)', async () => {
    // The tenant and project through the store: the CLI runs here are the three commands under test.
    const store = createAuthStore(db.pool);
    const tenant = await store.createTenant({ name: 'Shop' });
    const project = await store.createProject({ tenantId: tenant.id, slug: 'shop' });

    const created = await run(
      [
        'keys',
        'create-public',
        '--project',
        'shop',
        '--origin',
        'https://Shop.Example.com/,http://localhost:5173',
        '--origin',
        'https://www.shop.example.com',
        '--voice',
        '--name',
        'storefront',
        '--json',
      ],
      db.url,
    );
    expect(created.code, created.stderr).toBe(0);
    const record = JSON.parse(created.stdout);
    expect(record).toEqual({
      id: expect.stringMatching(/^pkk_[0-9A-Za-z]{16}$/),
      tenantId: tenant.id,
      projectId: project.id,
      name: 'storefront',
      key: expect.stringMatching(/^pk_[0-9A-Za-z]{32}$/),
      allowedOrigins: ['https://shop.example.com', 'http://localhost:5173', 'https://www.shop.example.com'],
      permissions: { chat: true, voice: true },
      status: 'active',
      createdAt: expect.any(String),
      revokedAt: null,
    });
    expect(await store.resolvePublicKey(record.key)).toMatchObject({ id: record.id, projectId: project.id });

    const listed = await run(['keys', 'list-public', '--project', project.id], db.url);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^id\s+name\s+key\s+origins\s+permissions\s+status/);
    expect(listed.stdout).toContain(record.key);
    expect(listed.stdout).toContain('chat,voice');
    expect(listed.stdout).toMatch(/active/);

    const revoked = await run(['keys', 'revoke-public', record.id], db.url);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${record.id} at `));
    expect(await store.resolvePublicKey(record.key)).toBeNull();
  });
});
