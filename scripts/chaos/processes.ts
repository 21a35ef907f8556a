import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
const parleyBin = join(repoRoot, 'apps/cli/bin/parley.js');

export type ProcessKind = 'api' | 'worker' | 'start';

/** An exit the chaos run did not cause: the failure the run looks for. */
export interface UnexpectedExit {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
  /** The last log lines before it (JSON lines at warn and above). */
  lastLines: string[];
}

export interface ParleyProcess {
  readonly name: string;
  readonly kind: ProcessKind;
  /** The API's port (api and start), else null. */
  readonly port: number | null;
  readonly running: boolean;
  /** Spawns it and waits until it is up: the API answers /healthz, the worker logged `worker started`. */
  start(): Promise<void>;
  /** SIGKILL: a crash or an OOM kill; counted as expected. */
  kill(): Promise<void>;
  /** SIGTERM and wait: a graceful stop (a rolling restart's first half). */
  stop(): Promise<void>;
}

export interface ProcessOptions {
  name: string;
  kind: ProcessKind;
  env: Record<string, string>;
  /** The API's port (api and start). */
  port?: number;
  /** Log lines go to this directory as `<name>.log`. */
  logDir: string;
  onUnexpectedExit(exit: UnexpectedExit): void;
}

/** One `parley api|worker|start` process, as an operator runs it: the bin, its environment, its log file. */
export function parleyProcess(options: ProcessOptions): ParleyProcess {
  let child: ChildProcess | null = null;
  let log: WriteStream | null = null;
  const recent: string[] = [];
  const port = options.port ?? null;

  const remember = (chunk: Buffer) => {
    log?.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      recent.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
      if (recent.length > 8) recent.shift();
    }
  };

  async function start(): Promise<void> {
    if (child) return;
    log = createWriteStream(join(options.logDir, `${options.name}.log`), { flags: 'a' });
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_FORMAT: 'json',
      // The worker says `worker started` at info; the API would log every request at info.
      LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? (options.kind === 'worker' ? 'info' : 'warn'),
      ...options.env,
      ...(port === null ? {} : { PORT: String(port), HOST: '127.0.0.1' }),
    };
    const c = spawn(process.execPath, [parleyBin, options.kind], { cwd: repoRoot, env, stdio: 'pipe' });
    child = c;
    let started = false;
    let ready: () => void = () => {};
    const up = new Promise<void>((r) => {
      ready = r;
    });
    c.stdout?.on('data', (d: Buffer) => {
      remember(d);
      if (!started && options.kind === 'worker' && d.toString('utf8').includes('"worker started"')) ready();
    });
    c.stderr?.on('data', remember);
    c.once('exit', (code, signal) => {
      const expected = (c as ChildProcess & { expectedExit?: boolean }).expectedExit === true;
      if (child === c) child = null;
      log?.end();
      if (!expected)
        options.onUnexpectedExit({
          name: options.name,
          code,
          signal,
          at: Date.now(),
          lastLines: [...recent],
        });
      ready();
    });
    if (port !== null) void pollHealth(port, c).then(ready);
    await withTimeout(up, 120_000, `${options.name} did not start within 120 s`);
    started = true;
    if (c.exitCode !== null || c.signalCode !== null)
      throw new Error(`${options.name} exited at start:\n${recent.join('\n')}`);
  }

  async function end(signal: NodeJS.Signals): Promise<void> {
    const c = child;
    if (!c) return;
    (c as ChildProcess & { expectedExit?: boolean }).expectedExit = true;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  }

  return {
    name: options.name,
    kind: options.kind,
    port,
    get running() {
      return child !== null;
    },
    start,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

async function pollHealth(port: number, c: ChildProcess): Promise<void> {
  while (c.exitCode === null && c.signalCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, rej) => {
      timer = setTimeout(() => rej(new Error(message)), ms);
    }),
  ]);
}

/** Runs a one-shot `parley` command (migrate, projections rebuild, …) to completion; throws on a non-zero exit. */
export async function runParley(args: string[], env: Record<string, string>): Promise<string> {
  const c = spawn(process.execPath, [parleyBin, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_FORMAT: 'json', ...env },
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  c.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  c.stderr.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  const code = await new Promise<number | null>((r) => c.once('exit', r));
  if (code !== 0) throw new Error(`parley ${args.join(' ')} exited with ${code}:\n${err}`);
  return out;
}
