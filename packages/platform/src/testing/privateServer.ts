import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../embeddedPostgres.js';

/**
 * A Redis or NATS server of one test or chaos run (never the machine's shared one), on a free port,
 * that the run stops and starts to cut the dependency off and bring it back.
 */
export interface PrivateServer {
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** SIGTERM, then waits for the process to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (and, for NATS, the same JetStream store). */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

interface ServerKind {
  binary: string;
  scheme: string;
  args(port: number, dir: string): string[];
}

const redisKind: ServerKind = {
  binary: 'redis-server',
  scheme: 'redis',
  args: (port, dir) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ],
};

const natsKind: ServerKind = {
  binary: 'nats-server',
  scheme: 'nats',
  args: (port, dir) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
};

/** Finds a server binary on PATH or in the sbin directories Debian installs it to; null when absent. */
function find(binary: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin'];
  for (const dir of dirs) if (dir && existsSync(join(dir, binary))) return join(dir, binary);
  return null;
}

function locate(binary: string): string {
  const found = find(binary);
  if (found === null) throw new Error(`${binary} is not installed (looked on PATH and in /usr/sbin)`);
  return found;
}

/**
 * Whether a private server of this kind can be started here. Without it a suite is skipped loudly on
 * a workstation and fails with CI=true (as the suites that need the shared Redis or NATS do).
 */
export function canStartPrivate(kind: 'redis' | 'nats', suite: string): boolean {
  const binary = kind === 'redis' ? redisKind.binary : natsKind.binary;
  if (find(binary) !== null) return true;
  if (process.env.CI === 'true') throw new Error(`${binary} is not installed (CI=true): ${suite} needs it`);
  console.warn(`\n!!! SKIPPING ${suite}: ${binary} is not installed !!!\n`);
  return false;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} at start`);
    if (await portAnswers(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not listen on ${port} within 15 s`);
}

async function startServer(kind: ServerKind): Promise<PrivateServer> {
  const binary = locate(kind.binary);
  const dir = mkdtempSync(join(tmpdir(), `parley-private-${kind.scheme}-`));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    if (child) return;
    const c = spawn(binary, kind.args(port, dir), { stdio: 'ignore' });
    child = c;
    await waitForPort(port, c, kind.binary);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `${kind.scheme}://127.0.0.1:${port}`,
    port,
    get running() {
      return child !== null;
    },
    stop,
    start,
    async destroy() {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A private Redis without persistence (`--save ""`): a restart forgets every key, as a lost cache node does. */
export const startPrivateRedis = (): Promise<PrivateServer> => startServer(redisKind);

/** A private NATS with JetStream; its store survives a stop and start. */
export const startPrivateNats = (): Promise<PrivateServer> => startServer(natsKind);
