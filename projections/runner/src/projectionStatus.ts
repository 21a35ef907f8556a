import type { EventStore, LogHead, Position } from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import type { Projection } from './defineProjection.js';
import {
  type Failure,
  type GenerationRow,
  type GenerationState,
  listGenerations,
  readRegistry,
} from './registry.js';

export const DEFAULT_LAG_CAP = 1_000_000;

export interface GenerationStatus {
  readonly generation: number;
  readonly version: number;
  readonly status: GenerationState;
  /** Set when a handler failed: the generation is stopped at that event. */
  readonly failure: Failure | null;
  readonly checkpoint: Position;
  readonly eventsProcessed: number;
  readonly lastEventRecordedAt: Date | null;
  /** Events of the projection's types after the checkpoint, counted up to the cap. */
  readonly eventsBehind: number;
  readonly eventsBehindCapped: boolean;
  /** Head's recordedAt minus the last processed event's; 0 when caught up. */
  readonly secondsBehind: number;
  readonly updatedAt: Date;
}

export interface ProjectionStatus {
  readonly name: string;
  /**
   * failed: the live generation stopped on a poison event; rebuild_required:
   * the code's definition differs from the live generation's (which keeps
   * serving); unregistered: never run; building: a rebuild is in progress.
   */
  readonly state: 'ok' | 'building' | 'failed' | 'rebuild_required' | 'unregistered';
  readonly codeVersion: number;
  readonly liveGeneration: number | null;
  readonly liveVersion: number | null;
  readonly versionMismatch: boolean;
  readonly generations: readonly GenerationStatus[];
}

/** Lag and state of each projection; retired generations are left out unless asked for. */
export async function projectionStatus(
  pool: Pool,
  store: EventStore,
  projections: readonly Projection[],
  options: {
    cap?: number;
    includeRetired?: boolean;
    /** The log's head when the caller has read it already (the lag is measured against it). */
    head?: LogHead | null;
  } = {},
): Promise<ProjectionStatus[]> {
  const cap = options.cap ?? DEFAULT_LAG_CAP;
  const head = options.head !== undefined ? options.head : await store.head();
  const out: ProjectionStatus[] = [];
  for (const projection of projections) {
    const registered = await readRegistry(pool, projection.name);
    if (!registered) {
      out.push({
        name: projection.name,
        state: 'unregistered',
        codeVersion: projection.version,
        liveGeneration: null,
        liveVersion: null,
        versionMismatch: false,
        generations: [],
      });
      continue;
    }
    const rows = (await listGenerations(pool, projection.name)).filter(
      (g) => options.includeRetired || g.status !== 'retired',
    );
    const generations: GenerationStatus[] = [];
    for (const row of rows) generations.push(await generationLag(store, projection, row, head, cap));
    const versionMismatch =
      registered.version !== projection.version || registered.ddlHash !== projection.ddlHash;
    const live = generations.find((g) => g.status === 'live');
    const state = live?.failure
      ? 'failed'
      : generations.some((g) => g.status === 'building')
        ? 'building'
        : versionMismatch
          ? 'rebuild_required'
          : 'ok';
    out.push({
      name: projection.name,
      state,
      codeVersion: projection.version,
      liveGeneration: registered.liveGeneration,
      liveVersion: registered.version,
      versionMismatch,
      generations,
    });
  }
  return out;
}

async function generationLag(
  store: EventStore,
  projection: Projection,
  row: GenerationRow,
  head: LogHead | null,
  cap: number,
): Promise<GenerationStatus> {
  const base = {
    generation: row.generation,
    version: row.version,
    status: row.status,
    failure: row.failure,
    checkpoint: row.checkpoint,
    eventsProcessed: row.eventsProcessed,
    lastEventRecordedAt: row.lastEventRecordedAt,
    updatedAt: row.updatedAt,
  };
  if (row.status === 'retired' || !head) {
    return { ...base, eventsBehind: 0, eventsBehindCapped: false, secondsBehind: 0 };
  }
  const eventsBehind = await store.countAfter(row.checkpoint, projection.eventTypes, cap);
  let secondsBehind = 0;
  if (eventsBehind > 0) {
    // Nothing processed yet: measure from the first event still to process.
    let from = row.lastEventRecordedAt;
    if (!from) {
      const [first] = await store.readAll({
        after: row.checkpoint,
        maxCount: 1,
        ...(projection.eventTypes ? { eventTypes: projection.eventTypes } : {}),
      });
      from = first?.recordedAt ?? head.recordedAt;
    }
    secondsBehind = Math.max(0, (head.recordedAt.getTime() - from.getTime()) / 1000);
  }
  return { ...base, eventsBehind, eventsBehindCapped: eventsBehind >= cap, secondsBehind };
}

/** `1234`, or `≥ 1000000` when the count hit the cap. */
export const formatEventsBehind = (
  g: Pick<GenerationStatus, 'eventsBehind' | 'eventsBehindCapped'>,
): string => (g.eventsBehindCapped ? `≥ ${g.eventsBehind}` : String(g.eventsBehind));
