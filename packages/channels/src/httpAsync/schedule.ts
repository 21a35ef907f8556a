import { ParleyError } from '@parley/platform';
import { CALLBACK_RETRY_JITTER } from './jobs.js';

/**
 * The callback retry schedule (HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE): the delays before attempt 2, 3,
 * ... of a callback delivery, e.g. `10s,30s,1m,2m,5m,10m,30m,1h,2h,4h,8h` (the default,
 * DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS). A delivery makes one attempt more than the schedule has
 * entries.
 */

/** Entries a schedule may have. */
export const MIN_RETRY_SCHEDULE_ENTRIES = 1;
export const MAX_RETRY_SCHEDULE_ENTRIES = 50;
/** Bounds of one delay, seconds (1 s to 24 h). */
export const MIN_RETRY_DELAY_SECONDS = 1;
export const MAX_RETRY_DELAY_SECONDS = 24 * 3600;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/** A schedule that cannot be read; the message names the bad entry. */
export class RetryScheduleError extends ParleyError {
  override readonly name = 'RetryScheduleError';
  constructor(message: string) {
    super('RETRY_SCHEDULE_INVALID', 500, message);
  }
}

/**
 * Reads a comma-separated list of whole delays with a unit (`s`, `m` or `h`; `90s`, `2m`, `1h`),
 * in order, 1 to 50 entries, each from 1 s to 24 h; spaces around entries are ignored. Returns
 * seconds. RetryScheduleError (naming the entry) for anything else.
 */
export function parseRetrySchedule(value: string): number[] {
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '')
    throw new RetryScheduleError('the retry schedule is empty: give at least one delay, e.g. 10s,1m,1h');
  if (entries.length > MAX_RETRY_SCHEDULE_ENTRIES)
    throw new RetryScheduleError(
      `the retry schedule has ${entries.length} entries; at most ${MAX_RETRY_SCHEDULE_ENTRIES}`,
    );
  return entries.map((entry, i) => {
    const shown = JSON.stringify(entry.length > 40 ? `${entry.slice(0, 40)}…` : entry);
    const match = /^(\d{1,9})([smh])$/i.exec(entry);
    if (match === null)
      throw new RetryScheduleError(
        `entry ${i + 1} ${shown} is not a delay: a whole number and a unit s, m or h (e.g. 30s, 5m, 2h)`,
      );
    const seconds =
      Number(match[1]) * UNIT_SECONDS[(match[2] as string).toLowerCase() as keyof typeof UNIT_SECONDS];
    if (seconds < MIN_RETRY_DELAY_SECONDS || seconds > MAX_RETRY_DELAY_SECONDS)
      throw new RetryScheduleError(`entry ${i + 1} ${shown} is outside 1s..24h`);
    return seconds;
  });
}

/** The schedule in the form parseRetrySchedule reads, each delay in its largest exact unit. */
export function formatRetrySchedule(scheduleSeconds: readonly number[]): string {
  return scheduleSeconds
    .map((s) => (s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`))
    .join(',');
}

/**
 * The delay before the attempt after `index` retries of this queueing (0: before the second
 * attempt), ms: the scheduled delay (the last entry past the end) within ±CALLBACK_RETRY_JITTER,
 * so receivers coming back are not hit by every delivery's retry at once. `random` in [0, 1).
 */
export function retryDelayMs(
  scheduleSeconds: readonly number[],
  index: number,
  random: () => number = Math.random,
): number {
  if (scheduleSeconds.length === 0) throw new RetryScheduleError('the retry schedule is empty');
  const i = Math.min(Math.max(0, Math.trunc(index)), scheduleSeconds.length - 1);
  const base = (scheduleSeconds[i] as number) * 1000;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.max(0, Math.round(base * (1 + CALLBACK_RETRY_JITTER * (2 * r - 1))));
}
