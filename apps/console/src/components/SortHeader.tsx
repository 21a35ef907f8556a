export type SortOrder = 'asc' | 'desc';

/** Clicking a sortable header: the current column flips its order, another starts descending. */
export function nextSortOrder<F extends string>(sortBy: F, sortOrder: SortOrder, field: F): SortOrder {
  return sortBy === field && sortOrder === 'desc' ? 'asc' : 'desc';
}

/** `aria-sort` of a column header. */
export function ariaSortOf<F extends string>(
  sortBy: F,
  sortOrder: SortOrder,
  field: F,
): 'ascending' | 'descending' | 'none' {
  if (sortBy !== field) return 'none';
  return sortOrder === 'asc' ? 'ascending' : 'descending';
}

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
  sortOrder: SortOrder;
  onSort(field: F, order: SortOrder): void;
  numeric?: boolean;
}) {
  const ariaSort = ariaSortOf(sortBy, sortOrder, field);
  const next = nextSortOrder(sortBy, sortOrder, field);
  return (
    <th scope="col" aria-sort={ariaSort} class={numeric ? 'num' : undefined}>
      <button type="button" class="sort" onClick={() => onSort(field, next)}>
        {label}
        <span class="sort-mark" aria-hidden="true">
          {ariaSort === 'ascending' ? '▲' : ariaSort === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}
