import { upcast } from '@parley/events';
import { assertLogNotAhead, createPostgresEventStore, type EventStore } from '@parley/eventstore';
import {
  type Config,
  createPool,
  type EmbeddedPostgresHandle,
  findRunningEmbeddedPostgres,
  type Logger,
  type MigrationSet,
  migrate,
  type Pool,
  pendingMigrations,
  startEmbeddedPostgres,
} from '@parley/platform';
import { ensureProjections, type Projection } from '@parley/projection-runner';
import { migrationSets, projections } from './registry.js';
import { sealTelephonySecrets } from './telephonyAccounts.js';
import { UsageError } from './usageError.js';

/**
 * How a command gets its PostgreSQL when DATABASE_URL is unset:
 * - 'own': start the embedded cluster (`parley start`); fail if another
 *   process already runs it.
 * - 'attach': use the embedded cluster a running `parley start` serves, or
 *   start it for the duration of the command (status, rebuild, replay, migrate).
 * - 'external': refuse; production processes (`parley api`, `parley worker`)
 *   need DATABASE_URL.
 */
export type DatabaseMode = 'own' | 'attach' | 'external';

export interface System {
  config: Config;
  logger: Logger;
  databaseUrl: string;
  pool: Pool;
  store: EventStore;
  embedded: EmbeddedPostgresHandle | null;
  migrationSets: readonly MigrationSet[];
  projections: readonly Projection[];
  close(): Promise<void>;
}

export interface OpenOptions {
  database: DatabaseMode;
  /** Apply pending migrations before returning. */
  migrate: boolean;
  /**
   * Refuse (with a UsageError that says to run `parley migrate`) when migrations are pending and
   * `migrate` is false. Default true; only `parley migrate` itself opens an unmigrated database.
   */
  requireMigrated?: boolean;
  /** Upcast old event versions on read (off for raw audit replays). */
  upcast?: boolean;
  poolMax?: number;
}

export { UsageError } from './usageError.js';

async function resolveDatabase(
  config: Config,
  logger: Logger,
  mode: DatabaseMode,
): Promise<{ url: string; embedded: EmbeddedPostgresHandle | null }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: null };
  if (mode === 'external') {
    throw new UsageError(
      'DATABASE_URL is not set. Production processes need an external PostgreSQL; for one machine use `parley start`.',
    );
  }
  const running = await findRunningEmbeddedPostgres(config.PARLEY_DATA_DIR);
  if (running && mode === 'attach') return { url: running, embedded: null };
  if (running) {
    throw new UsageError(
      `another Parley is already running on the embedded PostgreSQL in ${config.PARLEY_DATA_DIR}; stop it first or set PARLEY_DATA_DIR`,
    );
  }
  const embedded = await startEmbeddedPostgres({
    dir: config.PARLEY_DATA_DIR,
    port: config.PARLEY_EMBEDDED_PG_PORT,
    logger: logger.child({ component: 'embedded-postgres' }),
  });
  return { url: embedded.url, embedded };
}

/** The composition root: one database, one log store, the registry. */
export async function openSystem(config: Config, logger: Logger, options: OpenOptions): Promise<System> {
  const { url, embedded } = await resolveDatabase(config, logger, options.database);
  const pool = createPool({ connectionString: url, max: options.poolMax ?? config.DATABASE_POOL_MAX });
  const closers: Array<() => Promise<void>> = [];
  try {
    if (options.migrate) {
      const applied = await migrate(pool, migrationSets);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
      await sealTelephonySecrets(pool, config, logger);
      // The read models' first generation too, so an API started before any worker answers empty
      // pages rather than 500 "relation does not exist" (idempotent; the worker fills them).
      await ensureProjections(pool, projections, { logger });
    } else if (options.requireMigrated !== false) {
      const pending = await pendingMigrations(pool, migrationSets);
      if (pending.length > 0) {
        throw new UsageError(
          `the database is not migrated (${pending.length} pending); run \`parley migrate\` first`,
        );
      }
    }
    const upcastFn = options.upcast === false ? undefined : upcast;
    let store: EventStore;
    if (config.EVENTSTORE_URL) {
      // The log lives in EventStoreDB; PostgreSQL keeps read models and checkpoints. Its client is
      // loaded only then (a subpath of @parley/eventstore).
      const { createEventStoreDbEventStore } = await import('@parley/eventstore/eventstoredb');
      store = createEventStoreDbEventStore({
        connectionString: config.EVENTSTORE_URL,
        logger,
        upcast: upcastFn,
      });
    } else {
      // Fail fast, before any reader could skip events (docs/log.md); the store checks too.
      if (options.requireMigrated !== false) await assertLogNotAhead(pool);
      store = createPostgresEventStore({
        pool,
        connectionString: url,
        logger: logger.child({ component: 'eventstore' }),
        pollIntervalMs: config.LOG_POLL_INTERVAL_MS,
        upcast: upcastFn,
      });
    }
    closers.push(() => store.close());
    return {
      config,
      logger,
      databaseUrl: url,
      pool,
      store,
      embedded,
      migrationSets,
      projections,
      async close() {
        for (const close of closers.reverse())
          await close().catch((err) => logger.warn({ err }, 'close failed'));
        await pool.end().catch(() => {});
        await embedded?.stop();
      },
    };
  } catch (err) {
    await pool.end().catch(() => {});
    await embedded?.stop().catch(() => {});
    throw err;
  }
}
