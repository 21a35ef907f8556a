/** Small presentational pieces of the session screens. */

const TONE: Record<string, string> = {
  active: 'info',
  idle: 'muted',
  ended: 'muted',
  completed: 'ok',
  escalated: 'warn',
  abandoned: 'bad',
  archived: 'muted',
  failed: 'bad',
  contained: 'info',
  contained_resolved: 'ok',
  contained_partial: 'warn',
  contained_unresolved: 'warn',
  ok: 'ok',
  success: 'ok',
  error: 'bad',
  blocked: 'bad',
  partial: 'warn',
  available: 'ok',
  unavailable: 'bad',
  call_in_progress: 'info',
  media_in_progress: 'info',
  media_unavailable: 'bad',
  // Voice call lifecycle (spec 001 §6).
  initiated: 'muted',
  ringing: 'info',
  'in-progress': 'info',
  busy: 'bad',
  'no-answer': 'bad',
  canceled: 'bad',
};

export function Badge({ value, kind }: { value: string | null | undefined; kind?: string }) {
  if (!value) return <span class="muted">—</span>;
  return (
    <span class={`badge tone-${TONE[value] ?? 'muted'}`} data-kind={kind}>
      {value}
    </span>
  );
}

export function Stat({
  label,
  value,
  title,
}: {
  label: string;
  value: preact.ComponentChildren;
  title?: string;
}) {
  return (
    <div class="stat" title={title}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
