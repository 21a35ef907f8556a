import { formatPosition, type Position } from '@parley/eventstore';
import type { GenerationStatus, ProjectionOverview, RebuildRequest } from '@parley/projection-runner';
import type { z } from 'zod';
import type { generationShape, projectionShape, rebuildShape } from './projectionSchemas.js';

/** The projections admin API's response bodies, from @parley/projection-runner's views. */

const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const START = (p: Position) => p.commit === 0n && p.prepare === 0n;

export const toRebuildBody = (r: RebuildRequest): z.infer<typeof rebuildShape> => ({
  id: r.id,
  projection: r.projection,
  state: r.state,
  requestedAt: r.requestedAt.toISOString(),
  startedAt: isoOrNull(r.startedAt),
  finishedAt: isoOrNull(r.finishedAt),
  generation: r.generation,
  eventsProcessed: r.eventsProcessed,
  eventsTotal: r.eventsTotal,
  eventsPerSecond: r.eventsPerSecond,
  error: r.error,
  requestedBy: { kind: r.requestedBy.kind, id: r.requestedBy.id },
});

const toGenerationBody = (g: GenerationStatus): z.infer<typeof generationShape> => ({
  generation: g.generation,
  version: g.version,
  status: g.status,
  failure:
    g.failure === null
      ? null
      : {
          error: g.failure.error,
          eventId: g.failure.eventId,
          eventType: g.failure.eventType,
          at: g.failure.at.toISOString(),
        },
  checkpoint: START(g.checkpoint) ? null : formatPosition(g.checkpoint),
  eventsProcessed: g.eventsProcessed,
  eventsBehind: g.eventsBehind,
  eventsBehindCapped: g.eventsBehindCapped,
  secondsBehind: g.secondsBehind,
  lastEventRecordedAt: isoOrNull(g.lastEventRecordedAt),
  updatedAt: g.updatedAt.toISOString(),
});

export const toProjectionBody = (p: ProjectionOverview): z.infer<typeof projectionShape> => ({
  name: p.name,
  state: p.state,
  codeVersion: p.codeVersion,
  liveGeneration: p.liveGeneration,
  liveVersion: p.liveVersion,
  versionMismatch: p.versionMismatch,
  generations: p.generations.map(toGenerationBody),
  rebuild: p.rebuild === null ? null : toRebuildBody(p.rebuild),
});
