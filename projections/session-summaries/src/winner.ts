/**
 * Which of two facts of the same kind a row keeps, so that the choice does not depend on the order
 * events arrive in: the earliest start wins, the latest end wins; equal times fall back to the event
 * id, so the choice is total.
 */
export interface Stamp {
  readonly at: Date;
  readonly eventId: string;
}

const compare = (a: Stamp, b: Stamp): number =>
  a.at.getTime() - b.at.getTime() || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/** True when `candidate` is the earlier start (or the first one). */
export const winsAsStart = (candidate: Stamp, current: Stamp | undefined): boolean =>
  current === undefined || compare(candidate, current) <= 0;

/** True when `candidate` is the later end (or the first one). */
export const winsAsEnd = (candidate: Stamp, current: Stamp | undefined): boolean =>
  current === undefined || compare(candidate, current) >= 0;
