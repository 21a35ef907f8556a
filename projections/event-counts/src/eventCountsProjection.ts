import type { RecordedEvent } from '@parley/eventstore';
import { defineProjection, type RowOf } from '@parley/projection-runner';

/** Events without a projectId in their metadata are counted under this id. */
export const NO_PROJECT = '-';

const projectIdOf = (event: RecordedEvent): string => {
  const id = event.metadata.projectId;
  return typeof id === 'string' && id.length > 0 ? id : NO_PROJECT;
};

const earlier = (a: Date, b: Date): Date => (a.getTime() <= b.getTime() ? a : b);
const later = (a: Date, b: Date): Date => (a.getTime() >= b.getTime() ? a : b);

/**
 * The demo read model: per project and event type, how many events, and the
 * first and last recordedAt. Reads every event type.
 */
export const eventCountsProjection = defineProjection({
  name: 'event-counts',
  version: 1,
  tables: {
    event_counts: {
      columns: {
        project_id: 'text',
        event_type: 'text',
        count: 'bigint',
        first_recorded_at: 'timestamptz',
        last_recorded_at: 'timestamptz',
      },
      primaryKey: ['project_id', 'event_type'],
      indexes: [{ columns: ['event_type'] }],
    },
  },
  handlers: {
    event_counts: {
      keys: (event) => [{ project_id: projectIdOf(event), event_type: event.type }],
      evolve: (row, event, key) => {
        const at = event.recordedAt;
        if (!row) return { ...key, count: 1, first_recorded_at: at, last_recorded_at: at };
        // Log order is commit order, not quite recordedAt order: keep min and max.
        return {
          ...row,
          count: row.count + 1,
          first_recorded_at: earlier(at, row.first_recorded_at),
          last_recorded_at: later(at, row.last_recorded_at),
        };
      },
    },
  },
});

export type EventCountRow = RowOf<typeof eventCountsProjection.tables.event_counts>;
