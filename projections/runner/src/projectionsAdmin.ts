import type { EventStore, LogHead } from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import type { Projection } from './defineProjection.js';
import { type ProjectionStatus, projectionStatus } from './projectionStatus.js';
import {
  latestRebuilds,
  type RebuildJobSender,
  type RebuildRequest,
  type RequestRebuildInput,
  readRebuild,
  requestRebuild,
} from './rebuildRequests.js';

export interface ProjectionOverview extends ProjectionStatus {
  /** The latest rebuild requested through the API, whatever its state; null when none. */
  readonly rebuild: RebuildRequest | null;
}

/**
 * What the projections admin API reads and does (deployment-wide): the CLI's `projections status`
 * with each projection's latest API rebuild, and rebuild requests run by the worker.
 */
export interface ProjectionsAdmin {
  /** A projection of this build (registered in code, run or not). */
  has(name: string): boolean;
  overview(): Promise<{ head: LogHead | null; projections: ProjectionOverview[] }>;
  /** Null when no registered projection has that name; else requestRebuild's errors. */
  requestRebuild(input: RequestRebuildInput): Promise<RebuildRequest | null>;
  /** Null when there is no such rebuild of that projection. */
  rebuild(projection: string, id: string): Promise<RebuildRequest | null>;
}

export function createProjectionsAdmin(deps: {
  pool: Pool;
  store: EventStore;
  projections: readonly Projection[];
  /** pg-boss for `send` only (not started). */
  boss: RebuildJobSender;
}): ProjectionsAdmin {
  const known = (name: string) => deps.projections.some((p) => p.name === name);
  return {
    has: known,
    async overview() {
      const head = await deps.store.head();
      // One head for the answer and for every lag in it.
      const statuses = await projectionStatus(deps.pool, deps.store, deps.projections, { head });
      const rebuilds = await latestRebuilds(
        deps.pool,
        statuses.map((s) => s.name),
      );
      return {
        head,
        projections: statuses.map((s) => ({ ...s, rebuild: rebuilds.get(s.name) ?? null })),
      };
    },
    async requestRebuild(input) {
      if (!known(input.projection)) return null;
      return requestRebuild(deps, input);
    },
    async rebuild(projection, id) {
      if (!known(projection)) return null;
      const found = await readRebuild(deps.pool, id);
      return found?.projection === projection ? found : null;
    },
  };
}
