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
