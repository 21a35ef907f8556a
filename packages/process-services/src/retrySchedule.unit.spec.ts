import { DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS } from '@parley/channels';
import { ConfigError, loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { callbackRetryScheduleOf } from './retrySchedule.js';

describe('callbackRetryScheduleOf', () => {
  it('is the default schedule when HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE is unset or empty', () => {
    expect(callbackRetryScheduleOf(loadConfig({}))).toEqual(DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS);
    expect(callbackRetryScheduleOf(loadConfig({ HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: ' ' }))).toEqual(
      DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
    );
  });

  it('reads the variable, and refuses a bad entry naming the variable and the entry', () => {
    expect(callbackRetryScheduleOf(loadConfig({ HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: '5s, 1m,2h' }))).toEqual([
      5, 60, 7200,
    ]);
    const bad = () => callbackRetryScheduleOf(loadConfig({ HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: '5s,soon' }));
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: entry 2 "soon" is not a delay/);
  });
});
