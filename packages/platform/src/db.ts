import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type QueryResultRow = pg.QueryResultRow;

const INT8_OID = 20;

/**
 * int8 columns (counts, sums) come back as JS numbers when they fit exactly;
 * beyond 2^53 we throw rather than silently round. Code that needs full
 * 64-bit values (log positions) selects them as text.
 */
function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} does not fit a JS number`);
  return n;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    // biome-ignore lint/suspicious/noExplicitAny: pg's own overloads
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

export interface PoolSettings {
  connectionString: string;
  max?: number;
  applicationName?: string;
  /**
   * How long a checkout waits for a connection (a new one, or a free one of a full pool) before it
   * fails (a connection-class error: 503 on the API, a retry with backoff in the worker). Default 10 s.
   */
  connectionTimeoutMs?: number;
}

/** Default of PoolSettings.connectionTimeoutMs. */
const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

export function createPool(settings: PoolSettings): Pool {
  const pool = new pg.Pool({
    connectionString: settings.connectionString,
    max: settings.max ?? 10,
    application_name: settings.applicationName ?? 'parley',
    connectionTimeoutMillis: settings.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    // A connection whose server vanished without a FIN (a failover, a dropped route) is noticed.
    keepAlive: true,
    types,
  });
  // An idle client losing its connection must not crash the process; the pool
  // drops it and the next checkout opens a new one.
  pool.on('error', () => {});
  // A checked-out client has no pool listener: when the server ends its session between two
  // statements (a restart's 57P01, a crash, a dropped connection) pg emits 'error' on the client,
  // which with no listener is an uncaught exception that ends the process. Every client gets one for
  // its whole life. Nothing is lost by ignoring the event: the client is no longer queryable, so the
  // holder's next statement fails with a connection-class error, and release() discards it.
  pool.on('connect', (client) => {
    client.on('error', ignoreConnectionLoss);
  });
  return pool;
}

function ignoreConnectionLoss(): void {}

/** Runs fn in one transaction on one client; rolls back on any error. */
export function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, 'BEGIN', fn);
}

/**
 * Runs `read` in one repeatable-read, read-only snapshot, so that a page's count and rows (or a
 * series and its totals) agree. `settings` are `set local …` statements for this read only (e.g.
 * `set local jit = off`).
 */
export function readSnapshot<T>(
  pool: Pool,
  read: (client: PoolClient) => Promise<T>,
  settings: readonly string[] = [],
): Promise<T> {
  const begin = ['begin isolation level repeatable read read only', ...settings].join('; ');
  return inTransaction(pool, begin, read);
}

async function inTransaction<T>(
  pool: Pool,
  begin: string,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** Checks that the database answers within timeoutMs. */
export async function ping(connectionString: string, timeoutMs = 1_000): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  // The server may end the session while we hold it (a restart): an answer of false, not a crash.
  client.on('error', ignoreConnectionLoss);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
