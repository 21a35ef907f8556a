/**
 * The response size cap of the list APIs (spec 000 §8: a page holds fewer rows than asked so that the
 * body stays within 1 MiB), shared by the session list and the LLM ledger.
 */
export const PAGE_BODY_LIMIT_BYTES = 1_048_576;

/**
 * Room left for the page envelope around the rows array (success, total, limit, offset, hasMore, the
 * freshness field, …: a few hundred bytes), with a wide margin.
 */
export const ENVELOPE_RESERVE_BYTES = 4_096;

/** What the serialised rows array (brackets and commas included) may take by default. */
export const PAGE_ITEMS_BUDGET_BYTES = PAGE_BODY_LIMIT_BYTES - ENVELOPE_RESERVE_BYTES;

/** UTF-8 bytes of a value serialised as JSON, as the API sends it. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * How many of the items, taken in order, fit in a JSON array of at most `budget` bytes, given each
 * item's serialised size. Sizes are read lazily and only until the first item that does not fit, so
 * a generator spares serialising the rest. At least one when there is one: a page always makes
 * progress, even past an item larger than the whole budget.
 */
export function fitCount(sizes: Iterable<number>, budget: number): number {
  let used = 2; // []
  let count = 0;
  for (const size of sizes) {
    const add = size + (count > 0 ? 1 : 0);
    if (count > 0 && used + add > budget) return count;
    used += add;
    count += 1;
  }
  return count;
}
