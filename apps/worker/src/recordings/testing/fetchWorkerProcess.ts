/**
 * A worker process that only works the media fetch queue, for the test that kills a worker in
 * the middle of a download (mediaFetch.int.spec.ts). Env: DATABASE_URL, MEDIA_DIR, CHANNEL_CREDENTIALS_KEY.
 */
import { createPostgresEventStore } from '@parley/eventstore';
import { createFilesystemMediaStorage } from '@parley/media';
import { createPool, keyringFromConfig, silentLogger } from '@parley/platform';
import { createTelephonyAccountStore } from '@parley/telephony';
import { createJobQueue } from '../jobQueue.js';
import { workMediaFetchQueue } from '../mediaFetchJob.js';
import { TEST_FETCH_OPTIONS } from './fetchOptions.js';

const pool = createPool({ connectionString: process.env.DATABASE_URL!, max: 4 });
const store = createPostgresEventStore({ pool });
const accounts = createTelephonyAccountStore(pool, keyringFromConfig(process.env));
const boss = createJobQueue(pool, { supervise: false });
await boss.start();
await workMediaFetchQueue(
  boss,
  {
    store,
    media: createFilesystemMediaStorage(process.env.MEDIA_DIR!),
    accountsOfProject: (projectId) => accounts.secretsOfProject(projectId),
    logger: silentLogger(),
  },
  TEST_FETCH_OPTIONS,
);
process.stdout.write('ready\n');
