import {
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  type ChannelQueueOptions,
  createChannelJobQueue,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  type HttpAsyncWorkerDeps,
  type InboundWorkerDeps,
  workChannelQueues,
  workHttpAsyncQueues,
} from '@parley/channels';
import { type EventStore, type Listener, startListener } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { type SuspensionWorkers, type SuspensionWorkOptions, workSuspensions } from './suspensionWork.js';

export interface ChannelsWorkOptions {
  /** Adapters by channel type (@parley/channels createChannelAdapters). */
  adapters: InboundWorkerDeps['adapters'];
  /** The connection store (@parley/channels createConnectionStore). */
  connections: InboundWorkerDeps['connections'];
  /** runtime.runTurn (@parley/runtime). */
  runTurn: InboundWorkerDeps['runTurn'];
  /** Retries and expiry of the channel jobs; defaults DEFAULT_CHANNEL_QUEUE_OPTIONS. */
  queue?: Partial<ChannelQueueOptions>;
  /** pg-boss polling of the channel queues, in seconds (at least 0.5). */
  pollingIntervalSeconds?: number;
  /** Jobs worked at once per queue. */
  teamSize?: number;
  /** Platform HTTP (tests: a stand-in). */
  fetch?: typeof fetch;
  /** Connections' apiBaseUrl re-checked before each send (CHANNEL_API_BASE_URL_ALLOWLIST). */
  apiBaseUrl?: InboundWorkerDeps['apiBaseUrl'];
  /**
   * The database URL for a LISTEN connection: jobs the API queues (webhooks) wake the workers at
   * once instead of at their next poll. Absent: polling only.
   */
  connectionString?: string;
  /**
   * The HTTP async channel's jobs (turns of submitted messages, callback deliveries), on the same
   * pg-boss and woken by the same LISTEN. Absent: not worked.
   */
  httpAsync?: ChannelsHttpAsyncOptions;
  /**
   * Suspended tools: the `tool-resume` queue and the timeout sweep; replies delivered through the
   * connections and, with `httpAsync`, the subscriptions. Absent: not worked.
   */
  suspensions?: SuspensionWorkOptions;
}

export interface ChannelsHttpAsyncOptions {
  /** The webhook subscription store (@parley/channels createSubscriptionStore). */
  subscriptions: HttpAsyncWorkerDeps['subscriptions'];
  /** The callback request: createGuardedFetch bound to HTTP_ASYNC_CALLBACK_ALLOWLIST. */
  fetch?: HttpAsyncWorkerDeps['fetch'];
  /** HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE parsed (seconds); default DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS. */
  retryScheduleSeconds?: readonly number[];
}

export interface ChannelsWork {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The inbound channel worker (spec 001 §4.1 "Processing"): pg-boss on the worker's pool, queues
 * `channel-inbound` (turns) and `channel-send` (deliveries with retries); with `httpAsync`, also
 * `http-async-turn` and `http-async-callback` (spec 001 §4.9).
 */
export function createChannelsWork(
  base: { pool: Pool; store: EventStore; logger: Logger },
  options: ChannelsWorkOptions,
): ChannelsWork {
  const logger = base.logger.child({ subsystem: 'channels' });
  let boss: PgBoss | null = null;
  let listener: Listener | null = null;
  let suspensionWorkers: SuspensionWorkers | null = null;
  return {
    async start() {
      boss = createChannelJobQueue(base.pool);
      boss.on('error', (err) => logger.error({ err }, 'channel job queue error'));
      await boss.start();
      const workers = await workChannelQueues(
        boss,
        {
          pool: base.pool,
          store: base.store,
          adapters: options.adapters,
          connections: options.connections,
          runTurn: options.runTurn,
          logger,
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
          ...(options.apiBaseUrl === undefined ? {} : { apiBaseUrl: options.apiBaseUrl }),
        },
        {
          ...DEFAULT_CHANNEL_QUEUE_OPTIONS,
          ...options.queue,
          ...(options.pollingIntervalSeconds === undefined
            ? {}
            : { pollingIntervalSeconds: options.pollingIntervalSeconds }),
          ...(options.teamSize === undefined ? {} : { teamSize: options.teamSize }),
        },
      );
      const httpAsync = options.httpAsync;
      const httpAsyncWorkers =
        httpAsync === undefined
          ? null
          : await workHttpAsyncQueues(
              boss,
              {
                pool: base.pool,
                store: base.store,
                logger: logger.child({ channelType: 'http_async' }),
                subscriptions: httpAsync.subscriptions,
                runTurn: (req) => options.runTurn(req),
                ...(httpAsync.fetch === undefined ? {} : { fetch: httpAsync.fetch }),
                ...(httpAsync.retryScheduleSeconds === undefined
                  ? {}
                  : { retryScheduleSeconds: httpAsync.retryScheduleSeconds }),
              },
              {
                ...(options.pollingIntervalSeconds === undefined
                  ? {}
                  : { pollingIntervalSeconds: options.pollingIntervalSeconds }),
                ...(options.teamSize === undefined ? {} : { teamSize: options.teamSize }),
              },
            );
      const suspensions = options.suspensions;
      suspensionWorkers =
        suspensions === undefined
          ? null
          : await workSuspensions(
              boss,
              {
                pool: base.pool,
                store: base.store,
                boss,
                connections: options.connections,
                subscriptions: httpAsync?.subscriptions ?? { resolve: async () => null },
                ...(httpAsync?.retryScheduleSeconds === undefined
                  ? {}
                  : { retryScheduleSeconds: httpAsync.retryScheduleSeconds }),
                logger: logger.child({ component: 'suspensions' }),
                resume: suspensions.resume,
                suspensions: suspensions.suspensions,
              },
              {
                ...(suspensions.sweepIntervalMs === undefined
                  ? {}
                  : { sweepIntervalMs: suspensions.sweepIntervalMs }),
                ...(options.pollingIntervalSeconds === undefined
                  ? {}
                  : { pollingIntervalSeconds: options.pollingIntervalSeconds }),
              },
            );
      if (options.connectionString !== undefined) {
        listener = startListener({
          connectionString: options.connectionString,
          channel: CHANNEL_JOBS_NOTIFY_CHANNEL,
          name: 'channel-jobs',
          logger,
          onWake: () => {
            workers.wake();
            httpAsyncWorkers?.wake();
            suspensionWorkers?.wake();
          },
        });
      }
    },
    async stop() {
      suspensionWorkers?.stop();
      suspensionWorkers = null;
      await listener?.close();
      listener = null;
      // Lets the jobs in flight finish (up to 30 s); an unfinished one is retried after it expires.
      await boss?.stop({ graceful: true, timeout: 30_000 });
      boss = null;
    },
  };
}
