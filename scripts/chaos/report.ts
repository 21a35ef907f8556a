import type { ScenarioResult } from './measure.js';

/** Statuses of a scenario's answers as `200: 612, 503: 40` (network: no HTTP answer at all). */
const statuses = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ') || '-';

const fiveXx = (r: ScenarioResult): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const counts of [r.ingest, r.reads])
    for (const [status, n] of Object.entries(counts))
      if (status.startsWith('5')) out[status] = (out[status] ?? 0) + n;
  return out;
};

const failedReads = (r: ScenarioResult): number =>
  Object.entries(r.reads).reduce((sum, [status, n]) => (status === '200' ? sum : sum + n), 0);

const ms = (v: number | null): string =>
  v === null ? '-' : Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : 'never';

/** What the issue asks of every scenario; each unmet one is a line. */
export function problems(r: ScenarioResult, options: { readsThroughout: boolean }): string[] {
  const out: string[] = [];
  if (r.unexpectedExits > 0) out.push(`${r.unexpectedExits} process exit(s)`);
  if (r.lost > 0) out.push(`${r.lost} acknowledged item(s) lost`);
  if (r.duplicated > 0) out.push(`${r.duplicated} item(s) duplicated`);
  if (r.readModelDelta > 0) out.push(`read model differs from the log by ${r.readModelDelta}`);
  const not503 = Object.entries(fiveXx(r)).filter(([status]) => status !== '503');
  if (not503.length > 0) out.push(`5xx other than 503: ${statuses(Object.fromEntries(not503))}`);
  for (const [kind, v] of Object.entries(r.recoveryMs))
    if (v !== null && v > 5_000) out.push(`${kind} recovered after ${ms(v)} (target 5 s)`);
  if (options.readsThroughout && failedReads(r) > 0) out.push(`${failedReads(r)} read(s) not served`);
  const slowest = r.extra.slowestStopMs;
  if (slowest !== undefined && slowest >= 15_000)
    out.push(`a graceful stop took ${ms(slowest)} (forced exit)`);
  return out;
}

export function markdownReport(
  results: ReadonlyArray<{ result: ScenarioResult; problems: string[] }>,
): string {
  const lines = [
    '| scenario | acknowledged (sessions / messages) | logged | read model | lost | duplicated | process exits | 5xx by status | no answer | answers during outages | recovery: ingest / reads / worker |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { result: r } of results) {
    const network = (r.ingest.network ?? 0) + (r.reads.network ?? 0);
    lines.push(
      [
        r.name,
        `${r.acknowledged.sessions} / ${r.acknowledged.messages}`,
        `${r.counts.logged.sessions} / ${r.counts.logged.messages}`,
        `${r.counts.readModel.sessions} / ${r.counts.readModel.messages}`,
        r.lost,
        r.duplicated,
        r.unexpectedExits,
        statuses(fiveXx(r)),
        network,
        statuses(r.duringOutages),
        `${ms(r.recoveryMs.ingest)} / ${ms(r.recoveryMs.read)} / ${ms(r.recoveryMs.projection)}`,
      ]
        .join(' | ')
        .replace(/^/, '| ')
        .replace(/$/, ' |'),
    );
  }
  lines.push('');
  for (const { result: r, problems: p } of results) {
    lines.push(
      `- **${r.name}**: ${p.length === 0 ? 'pass' : `FAIL (${p.join('; ')})`}. Ingest ${statuses(r.ingest)}; reads ${statuses(r.reads)}.${r.notes.map((n) => ` ${n}.`).join('')}`,
    );
  }
  return lines.join('\n');
}
