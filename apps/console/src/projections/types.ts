/** GET /api/v1/projections and the rebuild APIs (issue 10 contract E). */
export type ProjectionState = 'ok' | 'building' | 'failed' | 'rebuild_required' | 'unregistered';
export type RebuildState = 'queued' | 'running' | 'completed' | 'failed';

export interface Rebuild {
  id: string;
  projection: string;
  state: RebuildState;
  requestedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  generation: number | null;
  eventsProcessed: number;
  eventsTotal: number | null;
  eventsPerSecond: number | null;
  error: string | null;
  requestedBy: { kind: string; id: string | null };
}

export interface Generation {
  generation: number;
  version: number | string;
  status: string;
  failure: string | null;
  checkpoint: string | null;
  eventsProcessed: number;
  eventsBehind: number | null;
  eventsBehindCapped: boolean;
  secondsBehind: number | null;
  lastEventRecordedAt: string | null;
  updatedAt: string | null;
}

export interface Projection {
  name: string;
  state: ProjectionState;
  codeVersion: number | string | null;
  liveGeneration: number | null;
  liveVersion: number | string | null;
  versionMismatch: boolean;
  generations: Generation[];
  rebuild: Rebuild | null;
}

export interface ProjectionList {
  success: true;
  head: { position: string | null; recordedAt: string | null };
  projections: Projection[];
}
