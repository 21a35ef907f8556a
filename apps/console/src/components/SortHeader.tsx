/**
 * A sortable column header: a button inside the <th>, the <th> carrying aria-sort. Clicking the
 * current column flips the order; another column starts descending (largest/newest first).
 */
export function SortHeader<F extends string>({
  field,
  label,
  sortBy,
  sortOrder,
  onSort,
  numeric = false,
}: {
  field: F;
  label: string;
  sortBy: F;
  sortOrder: 'asc' | 'desc';
  onSort(field: F, order: 'asc' | 'desc'): void;
  numeric?: boolean;
}) {
  const active = sortBy === field;
  const ariaSort = active ? (sortOrder === 'asc' ? 'ascending' : 'descending') : 'none';
  const next = active && sortOrder === 'desc' ? 'asc' : 'desc';
  return (
    <th scope="col" aria-sort={ariaSort} class={numeric ? 'num' : undefined}>
      <button type="button" class="sort" onClick={() => onSort(field, next)}>
        {label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (sortOrder === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}
