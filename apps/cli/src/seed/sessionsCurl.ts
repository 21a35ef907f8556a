import type { Config } from '@parley/platform';
import { runningApiUrl } from '../runningApi.js';
import { DAY_MS } from './demoSessions.js';

/**
 * The API's address as a client on this machine reaches it: the running `parley start`'s on the
 * embedded database of this data directory, else HOST and PORT.
 */
export function apiBaseUrl(config: Config): string {
  const running = config.DATABASE_URL ? null : runningApiUrl(config.PARLEY_DATA_DIR);
  if (running) return running;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`;
}

const utcDay = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)}T00:00:00Z`;

/**
 * The sessions API over the seeded window: from the day a week ago to tomorrow (UTC days). Double
 * quotes: the arguments may be shell variables (`$PARLEY_URL`) or `$(cat …)`.
 */
export function sessionsCurl(baseUrl: string, projectId: string, key: string, now = Date.now()): string {
  const query = `fromDate=${utcDay(now - 7 * DAY_MS)}&toDate=${utcDay(now + DAY_MS)}`;
  return `curl -H "x-api-key: ${key}" "${baseUrl}/api/public/analytics/projects/${projectId}/sessions?${query}"`;
}

/** The recordings API for one session (the bearer form; `x-api-key` works too). */
export function recordingsCurl(baseUrl: string, projectId: string, key: string, sessionId: string): string {
  return `curl -H "Authorization: Bearer ${key}" "${baseUrl}/api/public/recordings/projects/${projectId}/sessions/${sessionId}/recordings?disposition=inline"`;
}
