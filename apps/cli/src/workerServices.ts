import { createMediaStorage } from '@parley/media';
import { ConfigError } from '@parley/platform';
import { createTelephonyAccountStore } from '@parley/telephony';
import type { RecordingsWorkOptions, SessionLifecycleOptions } from '@parley/worker';
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

/**
 * The worker's session lifecycle sweep (docs/sessions.md), its thresholds from the configuration;
 * a ConfigError when they contradict each other (checked before anything is opened).
 */
export function workerSessions({ config }: Pick<System, 'config'>): SessionLifecycleOptions {
  if (config.SESSION_ABANDON_AFTER_SECONDS <= config.SESSION_IDLE_AFTER_SECONDS) {
    throw new ConfigError([
      'SESSION_ABANDON_AFTER_SECONDS: must be greater than SESSION_IDLE_AFTER_SECONDS (a session goes idle before it is abandoned)',
    ]);
  }
  return {
    thresholds: {
      idleAfterMs: config.SESSION_IDLE_AFTER_SECONDS * 1000,
      abandonAfterMs: config.SESSION_ABANDON_AFTER_SECONDS * 1000,
      archiveAfterMs: config.SESSION_ARCHIVE_AFTER_DAYS * 86_400_000,
    },
    sweepIntervalMs: config.SESSION_LIFECYCLE_SWEEP_INTERVAL_SECONDS * 1000,
  };
}
