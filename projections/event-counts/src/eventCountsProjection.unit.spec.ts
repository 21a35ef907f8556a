import { randomUUID } from 'node:crypto';
import type { EventMetadata, RecordedEvent } from '@parley/eventstore';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import { describe, expect, it } from 'vitest';
import { eventCountsProjection } from './eventCountsProjection.js';

let seq = 0;
function recorded(type: string, at: string, metadata: EventMetadata = {}): RecordedEvent {
  seq += 1;
  return {
    eventId: randomUUID(),
    type,
    schemaVersion: 1,
    data: {},
    metadata,
    stream: 'session-1',
    revision: 0n,
    position: { commit: BigInt(seq), prepare: BigInt(seq) },
    recordedAt: new Date(at),
  };
}

describe('event-counts handlers', () => {
  it('counts per project and type, with first and last recordedAt', () => {
    const events = [
      recorded('MessageReceived', '2025-01-01T10:00:02Z', { projectId: 'p1' }),
      recorded('MessageReceived', '2025-01-01T10:00:01Z', { projectId: 'p1' }), // committed later, recorded earlier
      recorded('AgentReplied', '2025-01-01T10:00:03Z', { projectId: 'p1' }),
      recorded('MessageReceived', '2025-01-01T10:00:04Z', { projectId: 'p2' }),
      recorded('KeyRotated', '2025-01-01T10:00:05Z'),
      recorded('KeyRotated', '2025-01-01T10:00:06Z', { projectId: '' }),
    ];
    expect(memoryRows(projectInMemory(eventCountsProjection, events), 'event_counts')).toEqual([
      {
        project_id: '-',
        event_type: 'KeyRotated',
        count: 2,
        first_recorded_at: new Date('2025-01-01T10:00:05Z'),
        last_recorded_at: new Date('2025-01-01T10:00:06Z'),
      },
      {
        project_id: 'p1',
        event_type: 'AgentReplied',
        count: 1,
        first_recorded_at: new Date('2025-01-01T10:00:03Z'),
        last_recorded_at: new Date('2025-01-01T10:00:03Z'),
      },
      {
        project_id: 'p1',
        event_type: 'MessageReceived',
        count: 2,
        first_recorded_at: new Date('2025-01-01T10:00:01Z'),
        last_recorded_at: new Date('2025-01-01T10:00:02Z'),
      },
      {
        project_id: 'p2',
        event_type: 'MessageReceived',
        count: 1,
        first_recorded_at: new Date('2025-01-01T10:00:04Z'),
        last_recorded_at: new Date('2025-01-01T10:00:04Z'),
      },
    ]);
  });

  it('reads every event type', () => {
    expect(eventCountsProjection.eventTypes).toBeUndefined();
  });
});
