import type { Pool } from '@parley/platform';
import { vi } from 'vitest';

/**
 * Waits until the channel workers are idle: they listen for job notifications (parley_channel_jobs)
 * and pg-boss has fetched from their queues at least once (the backends' last statements show it).
 * From then on they sleep until their next poll, so a job they answer sooner was a NOTIFY's doing.
 */
export async function channelWorkersIdle(pool: Pool, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const { rows } = await pool.query<{ listening: number; fetched: number }>(
        `select count(*) filter (where query ilike 'listen parley_channel_jobs%')::int as listening,
                count(*) filter (where query ilike '%next as (%select j.id%')::int as fetched
           from pg_stat_activity where datname = current_database()`,
      );
      if (!rows[0] || rows[0].listening === 0 || rows[0].fetched === 0)
        throw new Error('workers not idle yet');
    },
    { timeout: timeoutMs, interval: 25 },
  );
}
