/** Display formats shared by the ledger's table, charts and totals. Pure. */

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '–';
  if (usd === 0) return '$0';
  const abs = Math.abs(usd);
  const digits = abs >= 100 ? 2 : abs >= 1 ? 3 : abs >= 0.01 ? 4 : 6;
  return `$${usd.toFixed(digits)}`;
}

/** Whole numbers with thousands separators; `placeholder` when there is no number. */
export function formatInt(n: number | null | undefined, placeholder = '–'): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return placeholder;
  return Math.round(n).toLocaleString('en-US');
}

/** 1234 → "1.2k", 2_500_000 → "2.5M" (axis labels). */
export function formatCompact(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${+(n / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return `${+n.toFixed(2)}`;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s === 0) return '0 s';
  if (Math.abs(s) < 10) return `${+s.toFixed(1)} s`;
  if (Math.abs(s) < 120) return `${Math.round(s)} s`;
  if (Math.abs(s) < 7200) return `${+(s / 60).toFixed(1)} min`;
  return `${+(s / 3600).toFixed(1)} h`;
}

/** "2026-03-01 10:15:02" in UTC (the console shows every time in UTC); `placeholder` when absent. */
export function formatUtc(iso: string | null | undefined, withSeconds = true, placeholder = '–'): string {
  if (!iso) return placeholder;
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  const s = new Date(t).toISOString();
  return `${s.slice(0, 10)} ${s.slice(11, withSeconds ? 19 : 16)}`;
}

/** Axis labels: short, two significant digits. */
export function axisCost(usd: number): string {
  if (usd === 0) return '$0';
  return `$${+usd.toPrecision(2)}`;
}

export function axisMs(ms: number): string {
  if (ms === 0) return '0';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${+(ms / 1000).toFixed(1)} s`;
}
