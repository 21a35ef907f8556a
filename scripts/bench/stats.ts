import pg from 'pg';

/** Latency quantiles of a set of timings in milliseconds (nearest rank). */
export interface Latency {
  runs: number;
  p50: number;
  p99: number;
  max: number;
}

export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

export function latencyOf(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    runs: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
  };
}

/**
 * Runs `fn` `runs` times in a row (after `warmup` untimed runs) and returns its latency; stops
 * early once `budgetMs` of timed runs have passed (a scenario far over its target would
 * otherwise take minutes), so `runs` of the result may be fewer than asked.
 */
export async function timeRuns(
  runs: number,
  fn: (run: number) => Promise<unknown>,
  options: { warmup?: number; budgetMs?: number } = {},
): Promise<Latency> {
  const warmup = options.warmup ?? 3;
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < runs && performance.now() - started < budget; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  return latencyOf(samples);
}

/**
 * Counts the SQL statements every pg client of this process sends while it runs (a round trip
 * each: node-postgres does not pipeline), and the process's CPU time: per-request costs that the
 * load of a shared machine does not change, beside the timings that it does.
 */
export function meterProcess(): { stop(): { statements: number; cpuMs: number } } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let statements = 0;
  // BENCH_SQL_HISTOGRAM=1: also counts each statement's text (its first 90 characters), printed to stderr.
  const texts = process.env.BENCH_SQL_HISTOGRAM ? new Map<string, number>() : undefined;
  proto.query = function (this: unknown, ...args: unknown[]) {
    statements += 1;
    if (texts !== undefined) {
      const first = args[0] as string | { text?: string };
      const text = (typeof first === 'string' ? first : (first?.text ?? '?')).replace(/\s+/g, ' ').trim();
      const key = text.slice(0, 90);
      texts.set(key, (texts.get(key) ?? 0) + 1);
    }
    return original.apply(this, args);
  };
  const cpu = process.cpuUsage();
  return {
    stop() {
      proto.query = original;
      if (texts !== undefined) {
        const rows = [...texts].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${String(n).padStart(7)}  ${t}`);
        const split = process.cpuUsage(cpu);
        process.stderr.write(
          `SQL statements by text (${statements}; CPU user ${Math.round(split.user / 1000)} ms, system ${Math.round(split.system / 1000)} ms):\n${rows.join('\n')}\n`,
        );
      }
      const used = process.cpuUsage(cpu);
      return { statements, cpuMs: (used.user + used.system) / 1000 };
    },
  };
}
