import { useMemo, useState } from 'preact/hooks';
import { alignMetric } from '../charts/align.js';
import { axisCost, axisMs, formatCompact, formatCost, formatInt, formatMs } from '../charts/format.js';
import { colorFor } from '../charts/palette.js';
import { type ChartSeries, TimeChart } from '../charts/TimeChart.js';
import { BUCKETS, GROUP_BYS, type LedgerView } from './filters.js';
import type { Bucket, GroupBy, LedgerStats } from './types.js';

const GROUP_LABELS: Record<GroupBy, string> = { model: 'Model', provider: 'Provider', source: 'Source' };
const BUCKET_LABELS: Record<Bucket | 'auto', string> = {
  auto: 'Automatic',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
};

const fmtCost = (v: number) => formatCost(v);
const fmtTokens = (v: number) => formatCompact(v);
const fmtMs = (v: number) => formatMs(v);

export function ChartControls({
  view,
  onChange,
}: {
  view: LedgerView;
  onChange(patch: Partial<LedgerView>): void;
}) {
  return (
    <div class="chart-controls">
      <label class="field inline-field">
        <span>Group by</span>
        <select
          value={view.groupBy}
          onChange={(e) => onChange({ groupBy: (e.target as HTMLSelectElement).value as GroupBy })}
        >
          {GROUP_BYS.map((g) => (
            <option key={g} value={g}>
              {GROUP_LABELS[g]}
            </option>
          ))}
        </select>
      </label>
      <label class="field inline-field">
        <span>Bucket</span>
        <select
          value={view.bucket}
          onChange={(e) => onChange({ bucket: (e.target as HTMLSelectElement).value as Bucket | 'auto' })}
        >
          {BUCKETS.map((b) => (
            <option key={b} value={b}>
              {BUCKET_LABELS[b]}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** Cost, tokens and latency (p50 solid, p95 dashed) per bucket, one series per key; totals per key. */
export function LedgerCharts({ stats }: { stats: LedgerStats }) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const hiddenKey = [...hidden].sort().join('\n');
  const toggle = (key: string) => {
    const next = new Set(hidden);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setHidden(next);
  };
  const charts = useMemo(() => {
    const colors = new Map(stats.series.map((s, i) => [s.key, colorFor(i)]));
    const cost = alignMetric(stats, (p) => p.cost, 'zero');
    const tokens = alignMetric(stats, (p) => p.totalTokens, 'zero');
    const p50 = alignMetric(stats, (p) => p.latencyP50Ms, 'gap');
    const p95 = alignMetric(stats, (p) => p.latencyP95Ms, 'gap');
    const simple = (a: typeof cost): ChartSeries[] =>
      a.series
        .filter((s) => !hidden.has(s.key))
        .map((s) => ({ label: s.key, values: s.values, color: colors.get(s.key) ?? '#333' }));
    const latency: ChartSeries[] = p50.series.flatMap((s, i) =>
      hidden.has(s.key)
        ? []
        : [
            { label: `${s.key} p50`, values: s.values, color: colors.get(s.key) ?? '#333' },
            {
              label: `${s.key} p95`,
              values: p95.series[i]?.values ?? [],
              color: colors.get(s.key) ?? '#333',
              dashed: true,
            },
          ],
    );
    return {
      colors,
      cost: { xs: cost.xs, present: cost.present, series: simple(cost) },
      tokens: { xs: tokens.xs, present: tokens.present, series: simple(tokens) },
      latency: { xs: p50.xs, present: p50.present, series: latency },
    };
  }, [stats, hiddenKey]);

  const per = `per ${stats.bucket} by ${stats.groupBy}, ${stats.series.length} ${stats.series.length === 1 ? 'series' : 'series'}`;
  const minute = stats.bucket === 'minute';
  return (
    <>
      <fieldset class="chart-legend">
        <legend class="visually-hidden">{`Series by ${stats.groupBy}: press to show or hide`}</legend>
        {stats.series.map((s) => (
          <button
            type="button"
            key={s.key}
            class="legend-chip"
            aria-pressed={!hidden.has(s.key)}
            onClick={() => toggle(s.key)}
          >
            <span class="swatch" style={{ background: charts.colors.get(s.key) ?? '#333' }} />
            {s.key}
          </button>
        ))}
        <span class="help legend-help">
          Latency: solid p50, dashed p95. Drag across a chart to zoom, double-click to reset.
        </span>
      </fieldset>
      <div class="charts">
        <TimeChart
          title="Cost (USD)"
          description={`cost in US dollars ${per}`}
          xs={charts.cost.xs}
          present={charts.cost.present}
          series={charts.cost.series}
          format={fmtCost}
          axisFormat={axisCost}
          withSeconds={minute}
        />
        <TimeChart
          title="Tokens"
          description={`total tokens ${per}`}
          xs={charts.tokens.xs}
          present={charts.tokens.present}
          series={charts.tokens.series}
          format={fmtTokens}
          withSeconds={minute}
        />
        <TimeChart
          title="Latency p50 / p95"
          description={`median (solid) and 95th percentile (dashed) latency in milliseconds ${per}`}
          xs={charts.latency.xs}
          present={charts.latency.present}
          series={charts.latency.series}
          format={fmtMs}
          axisFormat={axisMs}
          withSeconds={minute}
        />
      </div>
      <div class="table-scroll">
        <table class="dense totals">
          <caption>{`Totals by ${stats.groupBy}`}</caption>
          <thead>
            <tr>
              <th scope="col">{GROUP_LABELS[stats.groupBy]}</th>
              <th scope="col" class="num">
                Calls
              </th>
              <th scope="col" class="num">
                Failed
              </th>
              <th scope="col" class="num">
                Cost
              </th>
              <th scope="col" class="num">
                Tokens
              </th>
              <th scope="col" class="num">
                Latency p50
              </th>
              <th scope="col" class="num">
                Latency p95
              </th>
            </tr>
          </thead>
          <tbody>
            {stats.totals.length === 0 ? (
              <tr>
                <td colSpan={7} class="help">
                  No call in this window.
                </td>
              </tr>
            ) : (
              stats.totals.map((t, i) => (
                <tr key={t.key}>
                  <th scope="row">
                    <span class="swatch" style={{ background: charts.colors.get(t.key) ?? colorFor(i) }} />
                    {t.key}
                  </th>
                  <td class="num">{formatInt(t.calls)}</td>
                  <td class="num">{formatInt(t.failed)}</td>
                  <td class="num">{formatCost(t.cost)}</td>
                  <td class="num">{formatInt(t.totalTokens)}</td>
                  <td class="num">{formatMs(t.latencyP50Ms)}</td>
                  <td class="num">{formatMs(t.latencyP95Ms)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}
