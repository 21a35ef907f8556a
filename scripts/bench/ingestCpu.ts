import { readFile } from 'node:fs/promises';
import type { Pool } from '@parley/platform';

/**
 * CPU time used during a phase of the ingest bench, in ms, by the bench process (the API and the
 * clients, and the projections when inline), the projections' process, and the PostgreSQL backends
 * of the bench database (read from /proc: null where the server is not on this machine). On a
 * shared 2-core machine CPU per fact is steadier than facts/s, and tells which part to make cheaper.
 */
export interface CpuUse {
  benchMs: number;
  projectionsMs: number | null;
  /** The backends of the bench's own pool (the API's appends and reads, the bench's probes). */
  postgresMs: number | null;
  /** The backends of the projections' process (reads of the log, read model writes); null when inline. */
  postgresProjectionsMs: number | null;
}

/** The projections' process names its connections so (./ingestProjections.ts). */
export const PROJECTIONS_APPLICATION = 'parley-bench-projections';

const TICK_MS = 10;

interface Backend {
  first: number;
  last: number;
  projections: boolean;
}

/**
 * Reads the backends' CPU now into `backends` (first and last reading per backend: a pooled
 * connection closed while idle keeps its last reading); false when /proc cannot tell.
 */
async function readBackends(pool: Pool, backends: Map<number, Backend>, started: boolean): Promise<boolean> {
  const { rows } = await pool.query<{ pid: number; application_name: string }>(
    'select pid, application_name from pg_stat_activity where datname = current_database()',
  );
  for (const { pid, application_name } of rows) {
    let ms: number;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch (err) {
      // A backend that ended since pg_stat_activity was read keeps its last reading.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && backends.size > 0) continue;
      return false;
    }
    const known = backends.get(pid);
    if (known) known.last = ms;
    // A backend that appears later started within the phase: all of its time counts.
    else
      backends.set(pid, {
        first: started ? 0 : ms,
        last: ms,
        projections: application_name === PROJECTIONS_APPLICATION,
      });
  }
  return true;
}

export interface CpuMeter {
  /** Ends the bench process's share (the API's work is done) and reads the backends again. */
  phaseEnded(): Promise<void>;
  /** Reads everything again (after the projections caught up) and totals. */
  finish(): Promise<CpuUse>;
}

export async function startCpuMeter(
  pool: Pool,
  projectionsCpuMs: () => Promise<number | null>,
): Promise<CpuMeter> {
  const backends = new Map<number, Backend>();
  let readable = await readBackends(pool, backends, false);
  const projectionsStart = await projectionsCpuMs();
  const benchStart = process.cpuUsage();
  let bench: NodeJS.CpuUsage | undefined;
  const poll = setInterval(() => {
    void readBackends(pool, backends, true).then((ok) => {
      readable &&= ok;
    });
  }, 1_000);
  return {
    async phaseEnded() {
      bench = process.cpuUsage(benchStart);
      readable &&= await readBackends(pool, backends, true);
    },
    async finish() {
      clearInterval(poll);
      readable &&= await readBackends(pool, backends, true);
      const projectionsEnd = await projectionsCpuMs();
      const sum = (projections: boolean) =>
        [...backends.values()]
          .filter((b) => b.projections === projections)
          .reduce((total, b) => total + b.last - b.first, 0);
      const used = bench ?? process.cpuUsage(benchStart);
      const separate = projectionsStart !== null && projectionsEnd !== null;
      return {
        benchMs: (used.user + used.system) / 1000,
        projectionsMs: separate ? projectionsEnd - projectionsStart : null,
        postgresMs: readable ? sum(false) : null,
        postgresProjectionsMs: readable && separate ? sum(true) : null,
      };
    },
  };
}
