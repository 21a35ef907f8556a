import { createConnectionStore, createSubscriptionStore, keyringFromConfig } from '@parley/channels';
import { telephonyAccountsOf } from '@parley/process-services';
import { openSystem, UsageError } from '../system.js';
import type { CliContext } from './context.js';

/**
 * `parley channels rotate-credentials`: re-encrypts every channel connection's credentials (and every
 * HTTP async webhook subscription's secret and telephony account's auth token) under CHANNEL_CREDENTIALS_KEY (docs/channels.md "Credentials and key rotation"). Older keys must still be
 * in CHANNEL_CREDENTIALS_KEYS. Prints what it did and what is left per key id; never a secret.
 */
export async function channelsRotateCredentialsCommand(
  ctx: CliContext,
  options: { json?: boolean },
): Promise<void> {
  const keyring = keyringFromConfig(ctx.config);
  if (keyring === null) throw new UsageError('CHANNEL_CREDENTIALS_KEY is not set');
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 2 });
  try {
    const { reencrypted } = await createConnectionStore(system.pool, keyring).rotateCredentials();
    // HTTP async webhook subscriptions keep their signing secrets under the same keys. Re-encrypting
    // checks no callback URL, so none is given.
    const subscriptions = await createSubscriptionStore(system.pool, keyring, {
      checkUrl: async () => ({ ok: false, reason: 'invalid_url', message: 'not checked here' }),
    }).reencryptSecrets();
    // Telephony accounts' auth tokens and recording passwords share the keyring (issue 17).
    const telephony = telephonyAccountsOf(system);
    const telephonySealed = (await telephony.sealSecrets()).sealed;
    const { rows } = await system.pool.query<{ key_id: string; n: string }>(
      `select credentials_key_id as key_id, count(*) as n from channel_connections group by 1 order by 1`,
    );
    const byKey = Object.fromEntries(rows.map((r) => [r.key_id, Number(r.n)]));
    if (options.json) {
      ctx.out.write(
        `${JSON.stringify({
          reencrypted,
          currentKeyId: keyring.currentKeyId,
          connectionsByKeyId: byKey,
          subscriptionSecretsReencrypted: subscriptions.reencrypted,
          telephonyAccountsReencrypted: telephonySealed,
          telephonyAccountsByKeyId: await telephony.countByKeyId(),
        })}\n`,
      );
      return;
    }
    ctx.out.write(`re-encrypted ${reencrypted} connection(s) under ${keyring.currentKeyId}\n`);
    ctx.out.write(`re-encrypted ${subscriptions.reencrypted} webhook subscription secret(s)\n`);
    ctx.out.write(`re-encrypted ${telephonySealed} telephony account(s)\n`);
    for (const [keyId, n] of Object.entries(byKey)) ctx.out.write(`  ${keyId}: ${n}\n`);
  } finally {
    await system.close();
  }
}
