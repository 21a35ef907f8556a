import { useEffect, useState } from 'preact/hooks';
import type { Freshness as FreshnessValue } from '../api.js';

function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.floor(s / 60)} min ago`;
  if (s < 172_800) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/**
 * The read model's freshness of a page (docs/api.md "The freshness field"): the log position it had
 * applied and how long ago that event was recorded, ticking while shown.
 */
export function Freshness({
  value,
  label = 'Read model',
}: {
  value: FreshnessValue | null | undefined;
  label?: string;
}) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (!value) return null;
  const text =
    value.position === null
      ? `${label}: nothing applied yet`
      : `${label} at position ${value.position}${value.recordedAt ? `, last event ${ago(value.recordedAt, now)}` : ''}`;
  return (
    <span class="freshness" role="status" title={value.recordedAt ?? undefined}>
      <span class="freshness-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
