import { randomBytes } from 'node:crypto';
import {
  createConnectionStore,
  createKeyring,
  createSubscriptionStore,
  credentialsKeyId,
} from '@parley/channels';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createTelephonyAccountStore } from '@parley/telephony';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

const run = (args: string[], databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, cleanEnv({ DATABASE_URL: databaseUrl, ...extraEnv }), 60_000);

describe('parley channels rotate-credentials', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('re-encrypts every connection under the new key, reading old ones with the old key', async () => {
    const tenant = JSON.parse((await run(['tenants', 'create', '--name', 'Acme', '--json'], db.url)).stdout);
    const project = JSON.parse(
      (await run(['projects', 'create', '--tenant', tenant.id, '--slug', 'chat', '--json'], db.url)).stdout,
    );
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createConnectionStore(db.pool, createKeyring(oldKey));
    const ids: string[] = [];
    for (const id of ['100', '200', '300']) {
      const c = await before.create(project.id, {
        channelType: 'telegram',
        externalIdentifier: id,
        credentials: { botToken: `${id}:secret-bot-token` },
      });
      ids.push(c.id);
    }

    const subscriptionsBefore = createSubscriptionStore(db.pool, createKeyring(oldKey), {
      checkUrl: async (url) => ({ ok: true, url: new URL(url), addresses: ['93.184.216.34'] }),
    });
    const created = await subscriptionsBefore.create(project.id, {
      displayName: 'Receiver',
      callbackUrl: 'https://hooks.acme.example/parley',
      events: ['agent.response'],
    });

    await createTelephonyAccountStore(db.pool, createKeyring(oldKey)).add({
      accountSid: 'AC_rotated',
      projectId: project.id,
      authToken: 'telephony-auth-token',
    });

    const missing = await run(['channels', 'rotate-credentials'], db.url);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('CHANNEL_CREDENTIALS_KEY is not set');

    const env = {
      CHANNEL_CREDENTIALS_KEY: newKey.toString('base64'),
      CHANNEL_CREDENTIALS_KEYS: oldKey.toString('base64'),
    };
    const rotated = await run(['channels', 'rotate-credentials', '--json'], db.url, env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toEqual({
      reencrypted: 3,
      currentKeyId: credentialsKeyId(newKey),
      connectionsByKeyId: { [credentialsKeyId(newKey)]: 3 },
      subscriptionSecretsReencrypted: 1,
      telephonyAccountsReencrypted: 1,
      telephonyAccountsByKeyId: { [credentialsKeyId(newKey)]: 1 },
    });
    const telephonyAfter = createTelephonyAccountStore(db.pool, createKeyring(newKey));
    expect((await telephonyAfter.secrets('AC_rotated'))?.authToken).toBe('telephony-auth-token');
    const subscriptionsAfter = createSubscriptionStore(db.pool, createKeyring(newKey), {
      checkUrl: async () => ({ ok: false, reason: 'invalid_url', message: 'unused' }),
    });
    expect((await subscriptionsAfter.resolve(created.subscription.id))?.secret).toBe(created.secret);
    expect(rotated.stdout + rotated.stderr).not.toContain('secret-bot-token');

    const after = createConnectionStore(db.pool, createKeyring(newKey));
    for (const [i, id] of ids.entries()) {
      expect((await after.resolveById(id))?.credentials).toEqual({
        botToken: `${['100', '200', '300'][i]}:secret-bot-token`,
      });
    }
    const again = await run(['channels', 'rotate-credentials'], db.url, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('re-encrypted 0 connection(s)');

    const bad = await run(['channels', 'rotate-credentials'], db.url, { CHANNEL_CREDENTIALS_KEY: 'short' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('CHANNEL_CREDENTIALS_KEY');
  });
});
