import {
  createChannelJobQueue,
  createEmailReceiver,
  createEmailSmtpServer,
  createEmailThreadStore,
  createInboundPipeline,
  type EmailSmtpServer,
  type InboundAdapter,
  type InboundConnectionLookup,
} from '@parley/channels';
import { createNatsRelay, type NatsRelayOptions } from '@parley/downstream';
import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import { createProjectionRunner, type Projection } from '@parley/projection-runner';
import { type ChannelsWorkOptions, createChannelsWork } from './channels/channelsWork.js';
import { carryOverPgBossV10Jobs } from './pgBossV10CarryOver.js';
import { createProjectionRebuildWork, type ProjectionRebuildWorkOptions } from './projections/rebuildWork.js';
import { createRecordingsWork, type RecordingsWorkOptions } from './recordings/recordingsWork.js';
import { createSessionLifecycleWork, type SessionLifecycleOptions } from './sessions/sessionLifecycleWork.js';

export interface WorkerOptions {
  pool: Pool;
  store: EventStore;
  logger: Logger;
  projections: readonly Projection[];
  batchSize: number;
  pollIntervalMs: number;
  /** Call recordings: media fetch jobs (pg-boss, schema pgboss) and the retention sweep; off without it. */
  recordings?: RecordingsWorkOptions;
  /** Session lifecycle sweep (idle, abandoned, archived: docs/sessions.md); off without it. */
  sessions?: SessionLifecycleOptions;
  /** Inbound channel messages: turns and reply delivery (pg-boss, schema pgboss); off without it. */
  channels?: ChannelsWorkOptions;
  /** The email channel's inbound SMTP server (mail enqueued for `channels`); off without it. */
  email?: EmailIngressOptions;
  /** The NATS JetStream relay of the log (docs/downstream.md); off without it. */
  downstream?: DownstreamOptions;
  /** Rebuilds requested through the API (queue `projection-rebuild`, pg-boss); off without it. */
  rebuilds?: ProjectionRebuildWorkOptions;
}

/** The relay's connection and stream settings (the store, pool and logger are the worker's). */
export type DownstreamOptions = Omit<NatsRelayOptions, 'store' | 'pool' | 'logger'>;

export interface EmailIngressOptions {
  /** The connection store (@parley/channels createConnectionStore). */
  connections: InboundConnectionLookup;
  adapters: ReadonlyMap<string, InboundAdapter>;
  host: string;
  port: number;
  /** Greeting name; default the machine's host name. */
  hostname?: string;
  /** PEM key and certificate: STARTTLS is offered. */
  tls?: { key: Buffer; cert: Buffer };
  maxMessageBytes?: number;
}

/** The SMTP server and, behind it, the same enqueueing the webhooks use (dedupe row and job in one transaction). */
function createEmailIngress(
  base: Pick<WorkerOptions, 'pool' | 'logger'>,
  email: EmailIngressOptions,
): EmailSmtpServer {
  const logger = base.logger.child({ subsystem: 'email' });
  const pipeline = createInboundPipeline({
    pool: base.pool,
    boss: createChannelJobQueue(base.pool),
    adapters: email.adapters,
    connections: email.connections,
    logger,
  });
  return createEmailSmtpServer({
    receiver: createEmailReceiver({
      pipeline,
      connections: email.connections,
      threads: createEmailThreadStore(base.pool),
      logger,
    }),
    connections: email.connections,
    logger,
    host: email.host,
    port: email.port,
    ...(email.hostname === undefined ? {} : { hostname: email.hostname }),
    ...(email.tls === undefined ? {} : { tls: email.tls }),
    ...(email.maxMessageBytes === undefined ? {} : { maxMessageBytes: email.maxMessageBytes }),
  });
}

export interface Worker {
  start(): Promise<void>;
  /** Finishes the work in flight, then stops. */
  stop(): Promise<void>;
}

/**
 * The worker process's work: today the projection runner; later issues add
 * inbound-message processing, callback delivery, media fetch, idle sweeps and
 * the NATS relay, each started and stopped here.
 */
export function createWorker(options: WorkerOptions): Worker {
  const runner = createProjectionRunner({
    pool: options.pool,
    store: options.store,
    projections: options.projections,
    logger: options.logger.child({ subsystem: 'projections' }),
    batchSize: options.batchSize,
    pollIntervalMs: options.pollIntervalMs,
  });
  const recordings = options.recordings
    ? createRecordingsWork(
        {
          pool: options.pool,
          store: options.store,
          logger: options.logger,
          batchSize: options.batchSize,
          pollIntervalMs: options.pollIntervalMs,
        },
        options.recordings,
      )
    : null;
  const sessions = options.sessions
    ? createSessionLifecycleWork(
        { pool: options.pool, store: options.store, logger: options.logger, batchSize: options.batchSize },
        options.sessions,
      )
    : null;
  const channels = options.channels
    ? createChannelsWork(
        { pool: options.pool, store: options.store, logger: options.logger },
        options.channels,
      )
    : null;
  const email = options.email ? createEmailIngress(options, options.email) : null;
  const rebuilds = options.rebuilds
    ? createProjectionRebuildWork(
        {
          pool: options.pool,
          store: options.store,
          logger: options.logger,
          projections: options.projections,
        },
        options.rebuilds,
      )
    : null;
  const downstream = options.downstream
    ? createNatsRelay({
        ...options.downstream,
        store: options.store,
        pool: options.pool,
        logger: options.logger.child({ subsystem: 'nats-relay' }),
      })
    : null;
  return {
    async start() {
      await runner.start();
      await rebuilds?.start();
      await recordings?.start();
      sessions?.start();
      await channels?.start();
      // Once every queue exists: jobs a pg-boss 10 left behind join them (a no-op on new databases).
      if (recordings || channels || rebuilds) await carryOverPgBossV10Jobs(options.pool, options.logger);
      // After the channel queues exist: mail is answered 250 only once its job is stored.
      await email?.start();
      // A NATS outage does not stop the start: the relay waits (backoff) and catches up.
      await downstream?.start();
      options.logger.info({ projections: options.projections.map((p) => p.name) }, 'worker started');
    },
    async stop() {
      await downstream?.stop();
      await email?.stop();
      await channels?.stop();
      await sessions?.stop();
      await recordings?.stop();
      await rebuilds?.stop();
      await runner.stop();
      options.logger.info('worker stopped');
    },
  };
}
