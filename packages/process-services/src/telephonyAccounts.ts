import { keyringFromConfig } from '@parley/platform';
import { createTelephonyAccountStore, type TelephonyAccountStore } from '@parley/telephony';
import type { ProcessDependencies } from './dependencies.js';

/** The telephony accounts, their secrets sealed with the channel credentials keyring of the configuration. */
export function telephonyAccountsOf(
  deps: Pick<ProcessDependencies, 'pool' | 'config'>,
): TelephonyAccountStore {
  return createTelephonyAccountStore(deps.pool, keyringFromConfig(deps.config));
}
