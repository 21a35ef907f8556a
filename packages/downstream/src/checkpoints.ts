import type { Position } from '@parley/eventstore';
import { loadMigrationSet, type Pool } from '@parley/platform';

/** The relay's checkpoint table (migration set `downstream`). */
export const downstreamMigrations = loadMigrationSet(
  'downstream',
  new URL('../migrations/', import.meta.url),
);

/** The position of the last event the relay `name` had acknowledged by JetStream; undefined: none yet. */
export async function readCheckpoint(pool: Pool, name: string): Promise<Position | undefined> {
  const { rows } = await pool.query<{ commit: string; prepare: string }>(
    'select commit::text as commit, prepare::text as prepare from downstream_checkpoints where name = $1',
    [name],
  );
  const row = rows[0];
  return row === undefined ? undefined : { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
}

/** Stores the checkpoint (it only moves forward: an older position never overwrites a newer one). */
export async function writeCheckpoint(pool: Pool, name: string, position: Position): Promise<void> {
  await pool.query(
    `insert into downstream_checkpoints (name, commit, prepare) values ($1, $2, $3)
     on conflict (name) do update set commit = excluded.commit, prepare = excluded.prepare, updated_at = now()
     where (downstream_checkpoints.commit, downstream_checkpoints.prepare) < (excluded.commit, excluded.prepare)`,
    [name, position.commit.toString(), position.prepare.toString()],
  );
}
