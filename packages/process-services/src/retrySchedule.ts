import { DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS, parseRetrySchedule } from '@parley/channels';
import { type Config, ConfigError } from '@parley/platform';

/**
 * HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE, parsed (seconds): the delays between the attempts of a
 * callback delivery. Unset: the default schedule. A bad entry stops the process with the variable
 * named.
 */
export function callbackRetryScheduleOf(
  config: Pick<Config, 'HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE'>,
): readonly number[] {
  const value = config.HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE;
  if (value === undefined) return DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS;
  try {
    return parseRetrySchedule(value);
  } catch (err) {
    throw new ConfigError([
      `HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
}
