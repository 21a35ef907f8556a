/**
 * Previous/Next paging for offset-paged APIs whose pages may hold fewer rows than asked: Next moves
 * by the rows actually returned and is offered only while `hasMore`.
 */
export function Pager({
  offset,
  rows,
  total,
  hasMore,
  onPrevious,
  onNext,
  label = 'Pages',
  previousLabel = 'Previous',
  nextLabel = 'Next',
  showRange = true,
  busy = false,
}: {
  offset: number;
  rows: number;
  total: number | null;
  hasMore: boolean;
  onPrevious: (() => void) | null;
  onNext: () => void;
  label?: string;
  previousLabel?: string;
  nextLabel?: string;
  /** Show the "1–25 of 80" range (off where the caller shows it elsewhere). */
  showRange?: boolean;
  /** Disables both buttons (e.g. while a page loads). */
  busy?: boolean;
}) {
  const first = rows === 0 ? offset : offset + 1;
  return (
    <nav class="pager" aria-label={label}>
      {showRange ? (
        <span class="pager-range" aria-live="polite">
          {rows === 0
            ? 'No rows'
            : `${first.toLocaleString('en-US')}–${(offset + rows).toLocaleString('en-US')}`}
          {total !== null ? ` of ${total.toLocaleString('en-US')}` : ''}
        </span>
      ) : null}
      <button type="button" class="secondary" disabled={!onPrevious || busy} onClick={() => onPrevious?.()}>
        {previousLabel}
      </button>
      <button type="button" class="secondary" disabled={!hasMore || busy} onClick={onNext}>
        {nextLabel}
      </button>
    </nav>
  );
}
