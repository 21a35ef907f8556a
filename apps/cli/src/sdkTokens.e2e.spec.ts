import { authMigrations, createAuthStore } from '@parley/auth';
import { createSdkTokens } from '@parley/http';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from './testing/runCli.js';

const SECRET = 'cli-sdk-token-secret-of-32-characters!!';

describe('parley sdk-tokens issue', () => {
  let db: TestDatabase;
  let project: { id: string; tenantId: string };
  beforeAll(async () => {
    db = await createTestDatabase([authMigrations]);
    const auth = createAuthStore(db.pool);
    const tenant = await auth.createTenant({ name: 'Widget Co' });
    project = await auth.createProject({ tenantId: tenant.id, slug: 'widget', name: 'Widget' });
  });
  afterAll(() => db.close());

  it('mints a token the API verifies with the same secret: the project, the end user, the ttl', async () => {
    const env = cleanEnv({ DATABASE_URL: db.url, SDK_TOKEN_SECRET: SECRET });
    const json = await runCli(
      ['sdk-tokens', 'issue', '--project', 'widget', '--sub', 'visitor_9', '--ttl', '120', '--json'],
      env,
    );
    expect(json.code, json.stderr).toBe(0);
    const issued = JSON.parse(json.stdout) as { token: string; expiresAt: string };
    expect(issued).toMatchObject({ projectId: project.id, tenantId: project.tenantId, sub: 'visitor_9' });
    const seconds = (Date.parse(issued.expiresAt) - Date.now()) / 1000;
    expect(seconds).toBeGreaterThan(60);
    expect(seconds).toBeLessThanOrEqual(120);
    const verified = await createSdkTokens({ secret: SECRET }).verify(issued.token);
    expect(verified).toMatchObject({
      ok: true,
      claims: { projectId: project.id, tenantId: project.tenantId, sub: 'visitor_9' },
    });

    // The plain form: the token alone on stdout; an anonymous visitor id by default.
    const plain = await runCli(['sdk-tokens', 'issue', '--project', project.id], env);
    expect(plain.code, plain.stderr).toBe(0);
    const token = plain.stdout.trim();
    expect(await createSdkTokens({ secret: SECRET }).verify(token)).toMatchObject({
      ok: true,
      claims: { sub: expect.stringMatching(/^anon_/) },
    });
    expect(plain.stderr).toMatch(/X-SDK-Token/);
  });

  it('exits 2 without SDK_TOKEN_SECRET, for an unknown project, or a ttl over a day', async () => {
    const unset = await runCli(
      ['sdk-tokens', 'issue', '--project', 'widget'],
      cleanEnv({ DATABASE_URL: db.url }),
    );
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/SDK_TOKEN_SECRET/);
    const env = cleanEnv({ DATABASE_URL: db.url, SDK_TOKEN_SECRET: SECRET });
    const unknown = await runCli(['sdk-tokens', 'issue', '--project', 'nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no project/);
    const long = await runCli(['sdk-tokens', 'issue', '--project', 'widget', '--ttl', '86401'], env);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/--ttl/);
  });
});
