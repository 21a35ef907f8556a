import type { PoolClient } from '@parley/platform';

/** Runs fn in one transaction on a client the caller holds (withTransaction takes its own from a pool). */
export async function inTransaction<T>(client: PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query('begin');
  try {
    const result = await fn();
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}
