import type { Pool, PoolClient } from '@parley/platform';
import type { EventCountRow } from './eventCountsProjection.js';

export interface EventCount {
  projectId: string;
  eventType: string;
  count: number;
  firstRecordedAt: Date;
  lastRecordedAt: Date;
}

/** Reads the `event_counts` view (the live generation), ordered by project and type. */
export async function eventCounts(
  db: Pool | PoolClient,
  filter: { projectId?: string } = {},
): Promise<EventCount[]> {
  const { rows } = await db.query<EventCountRow>(
    `select project_id, event_type, count, first_recorded_at, last_recorded_at
       from event_counts
      where $1::text is null or project_id = $1
      order by project_id, event_type`,
    [filter.projectId ?? null],
  );
  return rows.map((r) => ({
    projectId: r.project_id,
    eventType: r.event_type,
    count: Number(r.count),
    firstRecordedAt: r.first_recorded_at,
    lastRecordedAt: r.last_recorded_at,
  }));
}
