import { createChannelAdapters, createConnectionStore, keyringFromConfig } from '@parley/channels';
import { createMediaStorage } from '@parley/media';
import { ConfigError } from '@parley/platform';
import { createTelephonyAccountStore } from '@parley/telephony';
import type { ChannelsWorkOptions, RecordingsWorkOptions, SessionLifecycleOptions } from '@parley/worker';
import { runtimeOf } from './chatServices.js';
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

/**
 * The worker's inbound channel jobs (turns and reply delivery); undefined without
 * CHANNEL_CREDENTIALS_KEY (connections' secrets cannot be read, no channel can be answered).
 */
export function workerChannels(system: System): ChannelsWorkOptions | undefined {
  const keyring = keyringFromConfig(system.config);
  if (keyring === null) return undefined;
  const runtime = runtimeOf(system);
  return {
    adapters: createChannelAdapters(),
    connections: createConnectionStore(system.pool, keyring),
    runTurn: (req) => runtime.runTurn(req),
  };
}
