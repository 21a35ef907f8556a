import { createMediaStorage } from '@parley/media';
import { createTelephonyAccountStore } from '@parley/telephony';
import type { RecordingsWorkOptions } from '@parley/worker';
import type { System } from './system.js';

/** The worker's recording jobs: media storage from the configuration, telephony accounts from the database. */
export function workerRecordings(system: System): RecordingsWorkOptions {
  const accounts = createTelephonyAccountStore(system.pool);
  return {
    media: createMediaStorage(system.config),
    accountsOfProject: (projectId) => accounts.secretsOfProject(projectId),
    retentionSweepIntervalMs: system.config.RECORDING_RETENTION_SWEEP_INTERVAL_SECONDS * 1000,
  };
}
