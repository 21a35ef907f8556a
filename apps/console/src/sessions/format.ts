/** Display formats shared by the session screens (pure, so they are unit-tested). */

/**
 * The session screens' placeholder for a missing value (an em dash; the ledger's is an en dash).
 * Pass it to the shared `formatUtc`/`formatInt` of charts/format.ts.
 */
export const DASH = '—';

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) {
    const m = Math.floor(ms / 60_000);
    const s = Math.round((ms % 60_000) / 1000);
    return s === 60 ? `${m + 1} m` : `${m} m ${s} s`;
  }
  const h = Math.floor(ms / 3_600_000);
  const m = Math.round((ms % 3_600_000) / 60_000);
  return `${h} h ${m} m`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  if (Math.abs(usd) < 0.01) return `$${usd.toFixed(5).replace(/0+$/, '')}`;
  return `$${usd.toFixed(usd < 100 ? 4 : 2).replace(/(\.\d\d)0+$/, '$1')}`;
}

export function formatClock(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  return new Date(t).toISOString().slice(11, 19);
}

/** `12 s ago`, `5 min ago`, `3 h ago`, `2 d ago`; `in the future` for clock skew. */
export function formatAgo(iso: string | null | undefined, now: number): string {
  if (!iso) return 'never';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return 'unknown';
  const s = Math.round((now - t) / 1000);
  if (s < -5) return 'in the future';
  if (s < 60) return `${Math.max(0, s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

export function formatPct(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return `${Math.round(ratio * 1000) / 10}%`;
}

/** Middle-ellipsis for long ids in dense tables (the full id stays in title/aria). */
export function shortId(id: string, max = 22): string {
  if (id.length <= max) return id;
  const head = Math.ceil((max - 1) / 2);
  const tail = Math.floor((max - 1) / 2);
  return `${id.slice(0, head)}…${id.slice(id.length - tail)}`;
}

/** Axis labels: `0`, `250ms`, `1.5s`, `20s`, `2m`. */
export function formatTick(ms: number): string {
  if (ms === 0) return '0';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(2))}s`;
  return `${Number((ms / 60_000).toFixed(1))}m`;
}
