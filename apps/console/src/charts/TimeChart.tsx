import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { isolatedIndices, tickLabel } from './align.js';
import { formatUtc } from './format.js';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
  color: string;
  /** Dashed line (p95). */
  dashed?: boolean;
}

export interface TimeChartProps {
  /** Visible heading and the chart's accessible name. */
  title: string;
  /** Longer accessible description: what is plotted, per what. */
  description: string;
  /** Unix seconds. */
  xs: number[];
  /** Rows of the accessible data table: xs[i] where some series has a point. */
  present: boolean[];
  series: ChartSeries[];
  format(value: number): string;
  /** Y-axis labels (default: format). */
  axisFormat?(value: number): string;
  /** Formats x for the data table (UTC). */
  withSeconds?: boolean;
  height?: number;
}

const utc = (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

/**
 * Hover read-out: the bucket and each series' value there, largest first. Built with textContent
 * (series keys are data) and positioned through element.style (allowed by the CSP).
 */
function tooltip(
  fmt: (v: number | null | undefined) => string,
  series: readonly ChartSeries[],
): uPlot.Plugin {
  let box: HTMLDivElement | null = null;
  return {
    hooks: {
      init: (u) => {
        box = document.createElement('div');
        box.className = 'chart-tip';
        box.setAttribute('aria-hidden', 'true');
        box.hidden = true;
        u.over.appendChild(box);
      },
      setCursor: (u) => {
        if (!box) return;
        const i = u.cursor.idx;
        const left = u.cursor.left ?? -1;
        if (i === null || i === undefined || left < 0) {
          box.hidden = true;
          return;
        }
        const rows: Array<{ label: string; color: string; value: number; dashed: boolean }> = [];
        u.series.forEach((s, si) => {
          if (si === 0 || !s.show) return;
          const v = u.data[si]?.[i];
          if (v === null || v === undefined) return;
          const info = series[si - 1];
          rows.push({
            label: info?.label ?? '',
            color: info?.color ?? '#333',
            value: v,
            dashed: Boolean(info?.dashed),
          });
        });
        if (rows.length === 0) {
          box.hidden = true;
          return;
        }
        rows.sort((a, b) => b.value - a.value);
        box.replaceChildren();
        const head = document.createElement('div');
        head.className = 'chart-tip-time';
        head.textContent = `${formatUtc(new Date((u.data[0][i] as number) * 1000).toISOString(), false)} UTC`;
        box.appendChild(head);
        for (const r of rows.slice(0, 10)) {
          const line = document.createElement('div');
          line.className = 'chart-tip-row';
          const swatch = document.createElement('span');
          swatch.className = r.dashed ? 'chart-tip-swatch dashed' : 'chart-tip-swatch';
          swatch.style.borderColor = r.color;
          const label = document.createElement('span');
          label.textContent = r.label;
          const value = document.createElement('b');
          value.textContent = fmt(r.value);
          line.append(swatch, label, value);
          box.appendChild(line);
        }
        if (rows.length > 10) {
          const more = document.createElement('div');
          more.className = 'chart-tip-more';
          more.textContent = `+${rows.length - 10} more`;
          box.appendChild(more);
        }
        box.hidden = false;
        const width = u.over.clientWidth;
        const boxWidth = box.offsetWidth;
        box.style.left = `${left + 12 + boxWidth > width ? Math.max(0, left - 12 - boxWidth) : left + 12}px`;
        box.style.top = '4px';
      },
    },
  };
}

/**
 * A uPlot time series with an accessible alternative: the canvas is a labelled image, and a
 * <details> below holds the same numbers as a table. Styles come from the bundle (CSP style-src
 * 'self'); uPlot sets element.style from JS, which the CSP allows.
 */
export function TimeChart(props: TimeChartProps) {
  const { title, description, xs, present, series, format, axisFormat = format, height = 180 } = props;
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '–' : format(v));
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      tzDate: utc,
      scales: {
        x: { time: true },
        y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] },
      },
      axes: [
        {
          stroke: '#5b6070',
          grid: { stroke: '#eceef2', width: 1 },
          ticks: { stroke: '#d9dbe1', width: 1, size: 4 },
          size: 28,
          values: (_u, splits, _axis, _space, incr) => splits.map((v) => tickLabel(v, incr)),
        },
        {
          stroke: '#5b6070',
          grid: { stroke: '#eceef2', width: 1 },
          ticks: { show: false },
          size: 52,
          values: (_u, splits) => splits.map((v) => (v === null || v === undefined ? '' : axisFormat(v))),
        },
      ],
      cursor: { drag: { x: true, y: false, setScale: true }, points: { size: 6 } },
      legend: { show: false },
      plugins: [tooltip(fmt, series)],
      series: [
        {},
        ...series.map(
          (s): uPlot.Series => ({
            label: s.label,
            stroke: s.color,
            width: 1.5,
            ...(s.dashed ? { dash: [5, 4] } : {}),
            spanGaps: false,
            points: { show: true, size: 5, fill: s.color, filter: isolatedIndices(s.values) },
          }),
        ),
      ],
    };
    const data = [xs, ...series.map((s) => s.values)] as uPlot.AlignedData;
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => {
      const width = Math.max(200, el.clientWidth);
      if (width !== plot.width) plot.setSize({ width, height });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [xs, series, height, format, axisFormat]);

  const rows = xs.map((x, i) => ({ x, i })).filter(({ i }) => present[i]);
  const id = `chart-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`} class="chart-title">
        {title}
      </figcaption>
      <div class="chart-canvas" ref={host} role="img" aria-label={`${title}: ${description}`} />
      <details class="chart-data">
        <summary>{`${title}: data table (${rows.length} ${rows.length === 1 ? 'bucket' : 'buckets'})`}</summary>
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">{`${title}: ${description}`}</caption>
            <thead>
              <tr>
                <th scope="col">Bucket (UTC)</th>
                {series.map((s) => (
                  <th scope="col" class="num" key={s.label}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map(({ x, i }) => (
                <tr key={x}>
                  <th scope="row">
                    {formatUtc(new Date(x * 1000).toISOString(), props.withSeconds ?? false)}
                  </th>
                  {series.map((s) => {
                    const v = s.values[i];
                    return (
                      <td class="num" key={s.label}>
                        {v === null || v === undefined ? '–' : format(v)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
