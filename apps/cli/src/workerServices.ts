import { readFileSync } from 'node:fs';
import {
  checkCallbackUrl,
  createChannelAdapters,
  createConnectionStore,
  createGuardedFetch,
  createSubscriptionStore,
  keyringFromConfig,
} from '@parley/channels';
import { createMediaStorage } from '@parley/media';
import { ConfigError } from '@parley/platform';
import { createSuspensionStore } from '@parley/runtime';
import type {
  ChannelsWorkOptions,
  DownstreamOptions,
  EmailIngressOptions,
  RecordingsWorkOptions,
  SessionLifecycleOptions,
} from '@parley/worker';
import { callbackAllowlistOf } from './callbackAllowlist.js';
import { callbackRetryScheduleOf } from './callbackRetrySchedule.js';
import { runtimeOf } from './chatServices.js';
import type { System } from './system.js';
import { telephonyAccountsOf } from './telephonyAccounts.js';

/** The worker's recording jobs: media storage from the configuration, telephony accounts from the database. */
export function workerRecordings(system: System): RecordingsWorkOptions {
  const accounts = telephonyAccountsOf(system);
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
  const allowlist = callbackAllowlistOf(system.config);
  const retryScheduleSeconds = callbackRetryScheduleOf(system.config);
  // URLs clients give (A2A push notifications, HTTP async callbacks) never reach private, loopback or
  // link-local addresses unless HTTP_ASYNC_CALLBACK_ALLOWLIST permits them; checked at every request.
  const callbackFetch = createGuardedFetch({ allowlist });
  return {
    adapters: createChannelAdapters({
      pool: system.pool,
      callbackFetch,
    }),
    // HTTP async: submitted messages' turns and their callbacks, to the subscriptions' URLs checked
    // again at every attempt against the same allowlist.
    httpAsync: {
      subscriptions: createSubscriptionStore(system.pool, keyring, {
        checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
      }),
      fetch: callbackFetch,
      retryScheduleSeconds,
    },
    connections: createConnectionStore(system.pool, keyring),
    runTurn: (req) => runtime.runTurn(req),
    // Suspended tools: resumed by their signed callback (the API queues them) or timed out here.
    suspensions: {
      resume: (req) => runtime.resume(req),
      suspensions: createSuspensionStore(system.pool, keyring),
    },
    // Webhooks queued by the API wake the workers through LISTEN at once; polling is the fallback.
    connectionString: system.databaseUrl,
    teamSize: system.config.CHANNEL_WORKER_CONCURRENCY,
  };
}

/** The inbound SMTP server's settings, read and checked before anything is opened. */
export type WorkerEmailSettings = Omit<EmailIngressOptions, 'connections' | 'adapters'>;

/**
 * The email channel's inbound SMTP server (docs/channels.md "Email") from the configuration: on
 * when EMAIL_SMTP_PORT is set; STARTTLS with EMAIL_SMTP_TLS_KEY and EMAIL_SMTP_TLS_CERT. A
 * ConfigError (before anything is opened) without CHANNEL_CREDENTIALS_KEY, with only one of the
 * TLS files, or when a file cannot be read.
 */
export function workerEmailSettings({ config }: Pick<System, 'config'>): WorkerEmailSettings | undefined {
  if (config.EMAIL_SMTP_PORT === undefined) return undefined;
  if (keyringFromConfig(config) === null) {
    throw new ConfigError([
      'EMAIL_SMTP_PORT: needs CHANNEL_CREDENTIALS_KEY (email connections hold credentials)',
    ]);
  }
  const { EMAIL_SMTP_TLS_KEY: keyFile, EMAIL_SMTP_TLS_CERT: certFile } = config;
  if ((keyFile === undefined) !== (certFile === undefined)) {
    throw new ConfigError(['EMAIL_SMTP_TLS_KEY and EMAIL_SMTP_TLS_CERT: set both or neither']);
  }
  const read = (name: string, file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch {
      throw new ConfigError([`${name}: cannot read ${file}`]);
    }
  };
  return {
    host: config.EMAIL_SMTP_HOST ?? '127.0.0.1',
    port: config.EMAIL_SMTP_PORT,
    ...(config.EMAIL_SMTP_HOSTNAME === undefined ? {} : { hostname: config.EMAIL_SMTP_HOSTNAME }),
    ...(keyFile === undefined || certFile === undefined
      ? {}
      : { tls: { key: read('EMAIL_SMTP_TLS_KEY', keyFile), cert: read('EMAIL_SMTP_TLS_CERT', certFile) } }),
    ...(config.EMAIL_SMTP_MAX_MESSAGE_BYTES === undefined
      ? {}
      : { maxMessageBytes: config.EMAIL_SMTP_MAX_MESSAGE_BYTES }),
  };
}

/** The worker's email ingress: the settings plus the connection store and the adapters. */
export function workerEmail(system: System, settings: WorkerEmailSettings): EmailIngressOptions | undefined {
  const keyring = keyringFromConfig(system.config);
  if (keyring === null) return undefined;
  return {
    ...settings,
    connections: createConnectionStore(system.pool, keyring),
    adapters: createChannelAdapters({ pool: system.pool }),
  };
}

/**
 * The NATS JetStream relay of the log (docs/downstream.md): on when NATS_URL is set (one or more
 * servers, comma-separated), the stream's settings from NATS_STREAM_* and NATS_DUPLICATE_WINDOW.
 */
export function workerDownstream({ config }: Pick<System, 'config'>): DownstreamOptions | undefined {
  if (config.NATS_URL === undefined) return undefined;
  return {
    nats: {
      servers: config.NATS_URL.split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
      name: 'parley-worker-relay',
    },
    stream: {
      name: config.NATS_STREAM_NAME,
      replicas: config.NATS_STREAM_REPLICAS,
      duplicateWindowMs: config.NATS_DUPLICATE_WINDOW,
      ...(config.NATS_STREAM_MAX_AGE === undefined ? {} : { maxAgeMs: config.NATS_STREAM_MAX_AGE }),
      ...(config.NATS_STREAM_MAX_BYTES === undefined ? {} : { maxBytes: config.NATS_STREAM_MAX_BYTES }),
    },
  };
}
