import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CALLBACK_RETRY_JITTER, DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS } from './jobs.js';
import {
  formatRetrySchedule,
  MAX_RETRY_DELAY_SECONDS,
  MAX_RETRY_SCHEDULE_ENTRIES,
  MIN_RETRY_DELAY_SECONDS,
  parseRetrySchedule,
  RetryScheduleError,
  retryDelayMs,
} from './schedule.js';

const delay = fc.integer({ min: MIN_RETRY_DELAY_SECONDS, max: MAX_RETRY_DELAY_SECONDS });
const schedule = fc.array(delay, { minLength: 1, maxLength: MAX_RETRY_SCHEDULE_ENTRIES });
const refusal = (value: string): string => {
  try {
    parseRetrySchedule(value);
  } catch (err) {
    if (err instanceof RetryScheduleError) return err.message;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
};

describe('parseRetrySchedule', () => {
  it('reads the documented default as DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS', () => {
    expect(parseRetrySchedule('10s,30s,1m,2m,5m,10m,30m,1h,2h,4h,8h')).toEqual(
      DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
    );
    expect(formatRetrySchedule(DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS)).toBe(
      '10s,30s,1m,2m,5m,10m,30m,1h,2h,4h,8h',
    );
  });

  it('accepts spaces around entries, upper-case units, the bounds, 90s and 24h', () => {
    expect(parseRetrySchedule(' 1s , 90S,24h ')).toEqual([1, 90, 86_400]);
    expect(parseRetrySchedule('1440m')).toEqual([86_400]);
    expect(parseRetrySchedule(Array(MAX_RETRY_SCHEDULE_ENTRIES).fill('1s').join(','))).toHaveLength(50);
  });

  it('round-trips: parse(format(schedule)) is the schedule', () => {
    fc.assert(
      fc.property(schedule, (s) => {
        expect(parseRetrySchedule(formatRetrySchedule(s))).toEqual(s);
      }),
    );
  });

  it('refuses each bad entry, naming it', () => {
    expect(refusal('')).toMatch(/empty/);
    expect(refusal('10s,,1m')).toMatch(/entry 2 "" is not a delay/);
    expect(refusal('10s,5x')).toMatch(/entry 2 "5x" is not a delay/);
    expect(refusal('10')).toMatch(/entry 1 "10" is not a delay/);
    expect(refusal('1.5m')).toMatch(/entry 1 "1.5m"/);
    expect(refusal('-5s')).toMatch(/entry 1 "-5s"/);
    expect(refusal('0s')).toMatch(/entry 1 "0s" is outside 1s..24h/);
    expect(refusal('10s,25h')).toMatch(/entry 2 "25h" is outside/);
    expect(refusal('86401s')).toMatch(/outside/);
    expect(
      refusal(
        Array(MAX_RETRY_SCHEDULE_ENTRIES + 1)
          .fill('1s')
          .join(','),
      ),
    ).toMatch(/51 entries/);
  });

  it('refuses any entry that is not digits and one unit, and any delay out of bounds', () => {
    const notADelay = fc.string({ maxLength: 12 }).filter((s) => !/^\s*\d{1,9}[smhSMH]\s*$/.test(s));
    fc.assert(
      fc.property(schedule, notADelay, fc.nat(), (s, bad, at) => {
        const entries = formatRetrySchedule(s).split(',');
        entries.splice(at % (entries.length + 1), 0, bad.replaceAll(',', ''));
        // A bad entry without its commas may be blank-with-spaces or digits-and-unit after trimming.
        const candidate = entries.join(',');
        const badEntry = bad.replaceAll(',', '').trim();
        if (/^\d{1,9}[smh]$/i.test(badEntry)) return;
        expect(() => parseRetrySchedule(candidate)).toThrow(RetryScheduleError);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: MAX_RETRY_DELAY_SECONDS + 1, max: 999_999_999 }), (s) => {
        expect(() => parseRetrySchedule(`${s}s`)).toThrow(/outside/);
      }),
    );
  });
});

describe('retryDelayMs', () => {
  it('stays within ±20% of the scheduled delay, the last entry past the end', () => {
    fc.assert(
      fc.property(
        schedule,
        fc.integer({ min: -3, max: 80 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (s, i, r) => {
          const base = (s[Math.min(Math.max(i, 0), s.length - 1)] as number) * 1000;
          const ms = retryDelayMs(s, i, () => r);
          expect(ms).toBeGreaterThanOrEqual(Math.floor(base * (1 - CALLBACK_RETRY_JITTER)));
          expect(ms).toBeLessThanOrEqual(Math.ceil(base * (1 + CALLBACK_RETRY_JITTER)));
        },
      ),
    );
  });

  it('is the delay itself at random 0.5, and the extremes at 0 and 1', () => {
    expect(retryDelayMs([10, 30], 0, () => 0.5)).toBe(10_000);
    expect(retryDelayMs([10, 30], 1, () => 0)).toBe(24_000);
    expect(retryDelayMs([10, 30], 1, () => 1)).toBe(36_000);
    // Sub-second schedules (tests) work the same way.
    expect(retryDelayMs([0.05], 0, () => 0.5)).toBe(50);
    expect(() => retryDelayMs([], 0)).toThrow(RetryScheduleError);
  });
});
