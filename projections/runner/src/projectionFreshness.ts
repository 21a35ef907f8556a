import { formatPosition } from '@parley/eventstore';
import type { Queryable } from './registry.js';

export interface ProjectionFreshness {
  /**
   * The checkpoint of the live generation (`commit/prepare`): every event of the projection's types
   * up to and including it is in the read model. Null when nothing has been applied yet.
   */
  readonly position: string | null;
  /** recordedAt of the last event the live generation applied; null when none. */
  readonly recordedAt: Date | null;
  /** The live generation; null when the projection was never registered. */
  readonly generation: number | null;
}

/**
 * How far a projection's read model has caught up with the log, from the registry alone (one indexed
 * read, no scan of the log), so that a query route can report it on every page. Read it before the
 * query it describes: checkpoints only move forward, so the rows then reflect at least this position.
 */
export async function projectionFreshness(q: Queryable, name: string): Promise<ProjectionFreshness> {
  const { rows } = await q.query<{
    generation: number;
    checkpoint_commit: string;
    checkpoint_prepare: string;
    last_event_recorded_at: Date | null;
  }>(
    `select g.generation, g.checkpoint_commit::text, g.checkpoint_prepare::text, g.last_event_recorded_at
       from projection_registry r
       join projection_generations g on g.name = r.name and g.generation = r.live_generation
      where r.name = $1`,
    [name],
  );
  const row = rows[0];
  if (!row) return { position: null, recordedAt: null, generation: null };
  const position = { commit: BigInt(row.checkpoint_commit), prepare: BigInt(row.checkpoint_prepare) };
  return {
    position: position.commit === 0n && position.prepare === 0n ? null : formatPosition(position),
    recordedAt: row.last_event_recorded_at,
    generation: row.generation,
  };
}
