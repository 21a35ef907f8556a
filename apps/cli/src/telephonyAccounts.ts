import { type Config, keyringFromConfig, type Logger, type Pool } from '@parley/platform';
import { createTelephonyAccountStore } from '@parley/telephony';

/**
 * The data step of the telephony migration 0002 (migrations/0002_encrypted_secrets.sql), run right
 * after the schema migrations by every process that migrates: SQL cannot encrypt with a key it
 * never sees. Seals the accounts still stored in clear; without CHANNEL_CREDENTIALS_KEY it can only
 * warn that some are. Idempotent: one query of a small table when there is nothing to do.
 */
export async function sealTelephonySecrets(pool: Pool, config: Config, logger: Logger): Promise<number> {
  const keyring = keyringFromConfig(config);
  const accounts = createTelephonyAccountStore(pool, keyring);
  if (keyring === null) {
    const clear = (await accounts.countByKeyId()).clear ?? 0;
    if (clear > 0) {
      logger.warn(
        { accounts: clear },
        'telephony accounts hold clear auth tokens: set CHANNEL_CREDENTIALS_KEY and restart to encrypt them',
      );
    }
    return 0;
  }
  const { sealed } = await accounts.sealSecrets({ onlyClear: true });
  if (sealed > 0) logger.info({ accounts: sealed }, 'telephony account secrets encrypted');
  return sealed;
}
