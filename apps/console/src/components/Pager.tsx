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
}: {
  offset: number;
  rows: number;
  total: number | null;
  hasMore: boolean;
  onPrevious: (() => void) | null;
  onNext: () => void;
  label?: string;
}) {
  const first = rows === 0 ? offset : offset + 1;
  return (
    <nav class="pager" aria-label={label}>
      <span class="pager-range" aria-live="polite">
        {rows === 0
          ? 'No rows'
          : `${first.toLocaleString('en-US')}–${(offset + rows).toLocaleString('en-US')}`}
        {total !== null ? ` of ${total.toLocaleString('en-US')}` : ''}
      </span>
      <button type="button" class="secondary" disabled={!onPrevious} onClick={() => onPrevious?.()}>
        Previous
      </button>
      <button type="button" class="secondary" disabled={!hasMore} onClick={onNext}>
        Next
      </button>
    </nav>
  );
}
