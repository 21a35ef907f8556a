import type { MediaFetchOptions } from '../mediaFetchJob.js';

/** Fast retries and a short expiry, so that tests see retries and a dead worker's job come back. */
export const TEST_FETCH_OPTIONS: MediaFetchOptions & { pollingIntervalSeconds: number } = {
  retryLimit: 3,
  retryDelaySeconds: 1,
  expireInSeconds: 2,
  requestTimeoutMs: 20_000,
  pollingIntervalSeconds: 0.5,
};
