/** UTC days, the unit of count rollups (RollupSpec): a rollup row counts one UTC day. */

const DAY_MS = 86_400_000;

/** Midnight UTC of the day an instant falls on. */
export function utcDay(at: Date | string): Date {
  const ms = new Date(at).getTime();
  return new Date(ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS));
}

/**
 * The whole UTC days inside [from, to) as [first, end), or null when it holds none: a reader sums
 * a day rollup over these and counts the partial days at the edges row by row.
 */
export function wholeDays(from: Date, to: Date): { first: Date; end: Date } | null {
  const floorFrom = utcDay(from);
  const first = floorFrom.getTime() === from.getTime() ? floorFrom : new Date(floorFrom.getTime() + DAY_MS);
  const end = utcDay(to);
  return first < end ? { first, end } : null;
}
