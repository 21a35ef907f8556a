import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
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

/** SQL statements and CPU of a metered phase; `texts`: statements by text (BENCH_SQL_HISTOGRAM). */
export interface ProcessUse {
  statements: number;
  cpuMs: number;
  userMs: number;
  systemMs: number;
  texts?: Map<string, number>;
}

/**
 * Counts the SQL statements every pg client of this process sends while it runs (a round trip
 * each: node-postgres does not pipeline), and the process's CPU time: per-request costs that the
 * load of a shared machine does not change, beside the timings that it does. `print: false`: the
 * histogram is returned, not printed (alternate merges its slices').
 */
export function meterProcess(options: { print?: boolean; profile?: boolean } = {}): { stop(): ProcessUse } {
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
  const profile = options.profile === false ? undefined : startProfile();
  const cpu = process.cpuUsage();
  return {
    stop() {
      proto.query = original;
      profile?.stop();
      const used = process.cpuUsage(cpu);
      const use: ProcessUse = {
        statements,
        cpuMs: (used.user + used.system) / 1000,
        userMs: used.user / 1000,
        systemMs: used.system / 1000,
        ...(texts === undefined ? {} : { texts }),
      };
      if (options.print !== false) printHistogram(use);
      return use;
    },
  };
}

function printHistogram(use: ProcessUse, label = ''): void {
  if (use.texts === undefined) return;
  const rows = [...use.texts].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${String(n).padStart(7)}  ${t}`);
  process.stderr.write(
    `SQL statements by text${label} (${use.statements}; CPU user ${Math.round(use.userMs)} ms, system ${Math.round(use.systemMs)} ms):\n${rows.join('\n')}\n`,
  );
}

/** A route's requests over the slices of `alternate`: timings, statements and CPU summed. */
export interface Alternated {
  times: number[];
  use: ProcessUse;
}

/** SQL statements (round trips) and CPU per request of a metered phase. */
export interface PerRequest {
  statements: number;
  cpuMs: number;
}

export const perRequest = (use: ProcessUse, requests: number): PerRequest => ({
  statements: use.statements / requests,
  cpuMs: use.cpuMs / requests,
});

/**
 * Runs each route's load for `seconds` in all, in slices of `sliceSeconds` taken in turn (ABBA
 * order), so a change in the shared machine's load falls on every route alike and their ratio
 * holds. Each slice is metered (meterProcess); a histogram per route is printed at the end.
 */
export async function alternate<K extends string>(
  routes: Record<K, (seconds: number) => Promise<number[]>>,
  seconds: number,
  sliceSeconds = 1,
): Promise<Record<K, Alternated>> {
  const names = Object.keys(routes) as K[];
  const out = Object.fromEntries(
    names.map((k) => [k, { times: [], use: { statements: 0, cpuMs: 0, userMs: 0, systemMs: 0 } }]),
  ) as unknown as Record<K, Alternated>;
  // A CPU profile covers one whole phase: one slice per route then.
  const slice = process.env.BENCH_CPU_PROFILE ? seconds : Math.min(sliceSeconds, seconds);
  const rounds = Math.max(1, Math.round(seconds / slice));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const meter = meterProcess({ print: false });
      const times = await routes[name](slice);
      const use = meter.stop();
      const sum = out[name];
      for (const t of times) sum.times.push(t);
      sum.use.statements += use.statements;
      sum.use.cpuMs += use.cpuMs;
      sum.use.userMs += use.userMs;
      sum.use.systemMs += use.systemMs;
      if (use.texts !== undefined) {
        sum.use.texts ??= new Map();
        for (const [t, n] of use.texts) sum.use.texts.set(t, (sum.use.texts.get(t) ?? 0) + n);
      }
    }
  }
  for (const name of names) printHistogram(out[name].use, ` of ${name}`);
  return out;
}

let profiles = 0;

/**
 * BENCH_CPU_PROFILE=<dir>: a V8 CPU profile of each metered phase (the whole process: API, client,
 * worker), written to <dir>/phase-<n>.cpuprofile when it stops (open in Chrome DevTools).
 */
function startProfile(): { stop(): void } | undefined {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  profiles += 1;
  const file = join(dir, `phase-${profiles}.cpuprofile`);
  return {
    stop() {
      session.post('Profiler.stop', (err, result) => {
        if (err === null) writeFileSync(file, JSON.stringify(result.profile));
        process.stderr.write(
          err === null ? `CPU profile: ${file}\n` : `CPU profile failed: ${err.message}\n`,
        );
        session.disconnect();
      });
    },
  };
}
