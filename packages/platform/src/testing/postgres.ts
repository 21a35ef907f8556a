import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ping } from '../db.js';
import { startEmbeddedPostgres } from '../embeddedPostgres.js';

export interface TestPostgres {
  /** A superuser connection string to a maintenance database of the server. */
  adminUrl: string;
  source: 'env' | 'machine' | 'embedded';
  stop(): Promise<void>;
}

const MACHINE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * One PostgreSQL for a whole test run: PARLEY_TEST_DATABASE_URL if set, else
 * the machine's on 127.0.0.1:5432 if it answers, else an embedded cluster in a
 * temporary directory, removed at the end.
 */
export async function ensureTestPostgres(): Promise<TestPostgres> {
  const fromEnv = process.env.PARLEY_TEST_DATABASE_URL;
  if (fromEnv) {
    if (!(await ping(fromEnv, 3_000))) throw new Error('PARLEY_TEST_DATABASE_URL is set but does not answer');
    return { adminUrl: fromEnv, source: 'env', stop: async () => {} };
  }
  if (await ping(MACHINE_URL)) return { adminUrl: MACHINE_URL, source: 'machine', stop: async () => {} };

  const dir = mkdtempSync(join(tmpdir(), 'parley-test-pg-'));
  const handle = await startEmbeddedPostgres({ dir, database: 'postgres' });
  return {
    adminUrl: handle.url,
    source: 'embedded',
    stop: async () => {
      await handle.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
