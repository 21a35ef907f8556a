import type { EventStore } from '@parley/eventstore';
import type { Config, Logger, Pool } from '@parley/platform';

/**
 * What every Parley process is built from: its configuration, its logger, one PostgreSQL pool and
 * the log store. The CLI opens them (apps/cli/src/system.ts) and hands them to the API
 * (apps/api/src/server.ts) and the worker (apps/worker/src/process.ts).
 */
export interface ProcessDependencies {
  config: Config;
  logger: Logger;
  /** The PostgreSQL the pool connects to (LISTEN connections, readiness checks). */
  databaseUrl: string;
  pool: Pool;
  store: EventStore;
}
