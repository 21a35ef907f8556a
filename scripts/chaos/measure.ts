import {
  defaultLoad,
  type LoadOptions,
  type LoadStats,
  recoveryMs,
  sleep,
  startLoad,
  statusesBetween,
} from './load.js';
import type { ParleyProcess } from './processes.js';
import { type ChaosProject, type Counts, settledCounts, type World } from './world.js';

/** A dependency (or process) out of service from `down` until `back` (epoch ms). */
export interface Outage {
  what: string;
  down: number;
  back: number;
}

export interface ScenarioResult {
  name: string;
  acknowledged: { sessions: number; messages: number };
  counts: Counts;
  /** Acknowledged items the log lacks, and logged items beyond what was acknowledged (after the drain, every batch is acknowledged). */
  lost: number;
  duplicated: number;
  /** The read model's deviation from the log (after it caught up): anything but 0 is a loss or a double application. */
  readModelDelta: number;
  unexpectedExits: number;
  ingest: Record<string, number>;
  reads: Record<string, number>;
  /** Answers during the outages (from down until the first success after back), by status. */
  duringOutages: Record<string, number>;
  /**
   * The longest time, over the outages, from a dependency's return to the first 2xx of ingest and of
   * reads, and to the first growth of the read model (the worker writing again).
   */
  recoveryMs: { ingest: number | null; read: number | null; projection: number | null };
  outages: Outage[];
  /** Scenario-specific figures (e.g. events published to NATS). */
  extra: Record<string, number>;
  notes: string[];
}

export interface MeasureOptions {
  name: string;
  world: World;
  project: ChaosProject;
  /** The APIs the clients spread their requests over (evaluated per request: a rolling restart changes it). */
  apis: () => ParleyProcess[];
  load?: Partial<LoadOptions>;
  /** The chaos itself, while the load runs; returns the outages it caused. */
  chaos: (stats: LoadStats) => Promise<{ outages: Outage[]; notes?: string[] }>;
}

/**
 * Runs the load, the chaos, then drains (every client's last batch acknowledged), waits for the read
 * model to catch up, and compares: acknowledged vs logged vs read model, exits, statuses, recovery.
 */
export async function measure(options: MeasureOptions): Promise<ScenarioResult> {
  const { world, project } = options;
  const exitsBefore = world.exits.length;
  const load = startLoad(
    {
      apis: () =>
        options
          .apis()
          .filter((p) => p.running)
          .map((p) => `http://127.0.0.1:${p.port}`),
      projectId: project.projectId,
      ingestKey: project.ingestKey,
      analyticsKey: project.analyticsKey,
    },
    { ...defaultLoad, ...options.load },
  );
  const readModel = watchReadModel(world, project.projectId);
  const { outages, notes = [] } = await options.chaos(load.stats);
  await load.drain(120_000);
  readModel.stop();
  const counts = await settledCounts(world.pool, project.projectId, 120_000);
  const acked = load.stats.acknowledged;
  const lost =
    Math.max(0, acked.sessions - counts.logged.sessions) +
    Math.max(0, acked.messages - counts.logged.messages);
  const duplicated =
    Math.max(0, counts.logged.sessions - acked.sessions) +
    Math.max(0, counts.logged.messages - acked.messages);
  const readModelDelta =
    Math.abs(counts.readModel.sessions - counts.logged.sessions) +
    Math.abs(counts.readModel.messages - counts.logged.messages);
  const recovery = {
    ingest: null as number | null,
    read: null as number | null,
    projection: null as number | null,
  };
  const during: Record<string, number> = {};
  for (const outage of outages) {
    const ingest = recoveryMs(load.stats, outage.back, 'ingest');
    const read = recoveryMs(load.stats, outage.back, 'read');
    recovery.ingest = max(recovery.ingest, ingest ?? Number.POSITIVE_INFINITY);
    recovery.read = max(recovery.read, read ?? Number.POSITIVE_INFINITY);
    recovery.projection = max(
      recovery.projection,
      readModel.growthAfter(outage.back) ?? Number.POSITIVE_INFINITY,
    );
    const until = outage.back + Math.max(ingest ?? 0, read ?? 0);
    for (const [status, n] of Object.entries(statusesBetween(load.stats, outage.down, until)))
      during[status] = (during[status] ?? 0) + n;
  }
  return {
    name: options.name,
    acknowledged: { ...acked },
    counts,
    lost,
    duplicated,
    readModelDelta,
    unexpectedExits: world.exits.length - exitsBefore,
    ingest: load.stats.ingest,
    reads: load.stats.reads,
    duringOutages: during,
    recoveryMs: recovery,
    outages,
    extra: {},
    notes,
  };
}

const max = (a: number | null, b: number) => (a === null ? b : Math.max(a, b));

/** Samples the project's session count in the read model every 100 ms, to time the worker's recovery. */
function watchReadModel(world: World, projectId: string) {
  const samples: Array<{ at: number; sessions: number }> = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const { rows } = await world.pool.query<{ n: number }>(
          'select count(*)::int as n from session_summaries where project_id = $1',
          [projectId],
        );
        samples.push({ at: Date.now(), sessions: rows[0]?.n ?? 0 });
      } catch {
        // the database is away: no sample
      }
      await sleep(100);
    }
  })();
  return {
    stop() {
      stopped = true;
      void loop;
    },
    /** Ms from `back` to the first sample that grew past the last one taken before `back`. */
    growthAfter(back: number): number | null {
      const before = samples.filter((s) => s.at < back).at(-1)?.sessions ?? 0;
      const grown = samples.find((s) => s.at >= back && s.sessions > before);
      return grown === undefined ? null : grown.at - back;
    },
  };
}
