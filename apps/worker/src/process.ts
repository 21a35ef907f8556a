import { readFileSync } from 'node:fs';
import {
  cachedConnectionStore,
  checkCallbackUrl,
  createChannelAdapters,
  createConnectionStore,
  createGuardedFetch,
  createSubscriptionStore,
  keyringFromConfig,
} from '@parley/channels';
import { createMediaStorage } from '@parley/media';
import { type Config, ConfigError } from '@parley/platform';
import {
  apiBaseUrlAllowlistOf,
  callbackAllowlistOf,
  callbackRetryScheduleOf,
  type ProcessDependencies,
  runtimeOf,
  telephonyAccountsOf,
} from '@parley/process-services';
import type { Projection } from '@parley/projection-runner';
import { createSuspensionStore } from '@parley/runtime';
import type { ChannelsWorkOptions } from './channels/channelsWork.js';
import type { RecordingsWorkOptions } from './recordings/recordingsWork.js';
import type { SessionLifecycleOptions } from './sessions/sessionLifecycleWork.js';
import { createWorker, type DownstreamOptions, type EmailIngressOptions, type Worker } from './worker.js';

/** What the worker process is built from: every process's dependencies, plus the projections it runs. */
export interface WorkerDependencies extends ProcessDependencies {
  projections: readonly Projection[];
}

/**
 * The worker's settings that come from the configuration alone, read and checked before anything is
 * opened (a ConfigError then stops the process before it touches the database).
 */
export interface WorkerSettings {
  /** The session lifecycle sweep; undefined: off. */
  sessions: SessionLifecycleOptions | undefined;
  /** The email channel's inbound SMTP server; undefined: off (EMAIL_SMTP_PORT unset). */
  email: WorkerEmailSettings | undefined;
  /** The NATS relay of the log; undefined: off (NATS_URL unset). */
  downstream: DownstreamOptions | undefined;
  /**
   * Connections the worker's pool needs on top of DATABASE_POOL_MAX: each turn worker (channel turns
   * and HTTP async turns, CHANNEL_WORKER_CONCURRENCY each) holds one for its conversation's lock
   * during the turn, on top of what its queries use, so locks never starve the queries.
   */
  lockConnections: number;
}

export function workerSettingsOf(config: Config): WorkerSettings {
  return {
    sessions: workerSessions({ config }),
    email: workerEmailSettings({ config }),
    downstream: workerDownstream({ config }),
    lockConnections: 2 * config.CHANNEL_WORKER_CONCURRENCY,
  };
}

/**
 * The worker process (`parley worker`, and the worker half of `parley start`): projections and
 * rebuilds, recordings, session lifecycle, channel and HTTP async jobs, the email ingress and the
 * NATS relay, as the configuration enables them. What this process runs is read here; each part's
 * start and stop order is in worker.ts.
 */
export function createWorkerProcess(
  deps: WorkerDependencies,
  settings: WorkerSettings = workerSettingsOf(deps.config),
  options: { pollIntervalMs?: number } = {},
): Worker {
  const channels = workerChannels(deps);
  const email = settings.email ? workerEmail(deps, settings.email) : undefined;
  return createWorker({
    pool: deps.pool,
    store: deps.store,
    logger: deps.logger.child({ component: 'worker' }),
    projections: deps.projections,
    batchSize: deps.config.PROJECTION_BATCH_SIZE,
    pollIntervalMs: options.pollIntervalMs ?? deps.config.LOG_POLL_INTERVAL_MS,
    recordings: workerRecordings(deps),
    // Rebuilds requested through the API (POST /api/v1/projections/{name}/rebuilds).
    rebuilds: {},
    ...(channels ? { channels } : {}),
    ...(email ? { email } : {}),
    ...(settings.sessions ? { sessions: settings.sessions } : {}),
    ...(settings.downstream ? { downstream: settings.downstream } : {}),
  });
}

/** The worker's recording jobs: media storage from the configuration, telephony accounts from the database. */
function workerRecordings(system: ProcessDependencies): RecordingsWorkOptions {
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
export function workerSessions({ config }: Pick<ProcessDependencies, 'config'>): SessionLifecycleOptions {
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
function workerChannels(system: ProcessDependencies): ChannelsWorkOptions | undefined {
  const keyring = keyringFromConfig(system.config);
  if (keyring === null) return undefined;
  const runtime = runtimeOf(system);
  const allowlist = callbackAllowlistOf(system.config);
  const apiBaseUrlGuard = { allowlist: apiBaseUrlAllowlistOf(system.config) };
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
    // Connections' apiBaseUrl: checked when saved (API) and again before each send. Each inbound and
    // send job resolves its connection from a per-process cache (CONNECTION_CACHE_TTL_MS).
    connections: cachedConnectionStore(
      createConnectionStore(system.pool, keyring, { apiBaseUrl: apiBaseUrlGuard }),
    ),
    apiBaseUrl: apiBaseUrlGuard,
    runTurn: (req) => runtime.runTurn(req),
    // Suspended tools: resumed by their signed callback (the API queues them) or timed out here.
    suspensions: {
      resume: (req) => runtime.resume(req),
      suspensions: createSuspensionStore(system.pool, keyring),
    },
    // Webhooks queued by the API wake the workers through LISTEN at once; polling is the fallback.
    connectionString: system.databaseUrl,
    teamSize: system.config.CHANNEL_WORKER_CONCURRENCY,
    // Parts of a concatenated SMS wait this long for the others (docs/channels.md "SMS through Vonage").
    queue: { partTimeoutSeconds: system.config.CHANNEL_MESSAGE_PART_TIMEOUT_SECONDS },
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
export function workerEmailSettings({
  config,
}: Pick<ProcessDependencies, 'config'>): WorkerEmailSettings | undefined {
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
function workerEmail(
  system: ProcessDependencies,
  settings: WorkerEmailSettings,
): EmailIngressOptions | undefined {
  const keyring = keyringFromConfig(system.config);
  if (keyring === null) return undefined;
  return {
    ...settings,
    connections: createConnectionStore(system.pool, keyring, {
      apiBaseUrl: { allowlist: apiBaseUrlAllowlistOf(system.config) },
    }),
    adapters: createChannelAdapters({ pool: system.pool }),
  };
}

/**
 * The NATS JetStream relay of the log (docs/downstream.md): on when NATS_URL is set (one or more
 * servers, comma-separated), the stream's settings from NATS_STREAM_* and NATS_DUPLICATE_WINDOW.
 */
export function workerDownstream({
  config,
}: Pick<ProcessDependencies, 'config'>): DownstreamOptions | undefined {
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
