import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { authMigrations, createAuthStore } from '@parley/auth';
import { recordingStream, toAppend } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createFilesystemMediaStorage, type MediaStorage } from '@parley/media';
import { createKeyring, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createTelephonyAccountStore,
  type TelephonyAccountStore,
  telephonyMigrations,
} from '@parley/telephony';
import type { PgBoss } from 'pg-boss';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fetchJobId, fileOutcomeEventId } from './eventIds.js';
import { createFetchJobEnqueuer, MEDIA_FETCH_CONSUMER } from './fetchJobEnqueuer.js';
import { createJobQueue, PG_BOSS_SCHEMA } from './jobQueue.js';
import {
  CRASH_SPARE_ATTEMPTS,
  ensureMediaFetchQueue,
  MEDIA_FETCH_QUEUE,
  type MediaFetchDeps,
  type MediaFetchJobData,
  runMediaFetchJob,
  workMediaFetchQueue,
} from './mediaFetchJob.js';
import { TEST_FETCH_OPTIONS } from './testing/fetchOptions.js';
import { type RecordingServer, startRecordingServer, wav } from './testing/recordingServer.js';

// The telephony accounts' secrets are sealed with it; the worker process of the kill test gets it too.
const CREDENTIALS_KEY = randomBytes(32);

const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'the-auth-token';

let db: TestDatabase;
let store: PostgresEventStore;
let accounts: TelephonyAccountStore;
let server: RecordingServer;
let mediaDir: string;
let media: MediaStorage;
let projectId: string;
let deps: MediaFetchDeps;
const bosses: PgBoss[] = [];
const children: ChildProcess[] = [];
let counter = 0;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations, telephonyMigrations]);
  store = createPostgresEventStore({ pool: db.pool });
  const auth = createAuthStore(db.pool);
  accounts = createTelephonyAccountStore(db.pool, createKeyring(CREDENTIALS_KEY));
  const tenant = await auth.createTenant({ name: 'Acme', features: { callRecording: true } });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'voice' })).id;
  await accounts.add({ accountSid: ACCOUNT, projectId, authToken: TOKEN });
  server = await startRecordingServer({ accountSid: ACCOUNT, authToken: TOKEN });
  mediaDir = await mkdtemp(join(tmpdir(), 'parley-fetch-'));
  media = createFilesystemMediaStorage(mediaDir);
  deps = { store, media, accountsOfProject: (id) => accounts.secretsOfProject(id), logger: silentLogger() };
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const boss of bosses.splice(0)) await boss.stop({ graceful: false, timeout: 2_000 });
});
afterAll(async () => {
  await server.close();
  await store.close();
  await db.close();
  await rm(mediaDir, { recursive: true, force: true });
});

/** Runs `read` until it reads something or throws (10 s at most); the count it read. */
async function untilEventsRead(read: () => Promise<number>): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const count = await read();
    if (count > 0 || Date.now() > deadline) return count;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A completed recording whose files the recording server holds (each file a distinct tone). */
async function completedRecording(files: number): Promise<{ recordingId: string; paths: string[] }> {
  const recordingId = `RE${String(++counter).padStart(32, '0')}`;
  const recordingUrl = `${server.baseUrl}/2010-04-01/Accounts/${ACCOUNT}/Recordings/${recordingId}`;
  const channels = ['caller', 'agent', 'mixed'] as const;
  const specs = Array.from({ length: files }, (_, i) => ({
    objectIndex: i,
    channel: files === 1 ? ('mixed' as const) : channels[i]!,
    fileName: `${recordingId}-${i}.wav`,
    contentType: 'audio/wav',
    source: {
      kind: 'recording_server' as const,
      url: `${recordingUrl}.wav${files > 1 && i < 2 ? `?RequestedChannels=${i + 1}` : ''}`,
    },
  }));
  // Query strings select channels on one path in Twilio; the stand-in keys media by path, so give each file its own.
  for (const spec of specs) {
    spec.source.url = `${recordingUrl}-${spec.objectIndex}.wav`;
    server.media.set(
      new URL(spec.source.url).pathname,
      wav(200 + spec.objectIndex * 50, 300 + spec.objectIndex * 100),
    );
  }
  await store.append(recordingStream(recordingId), [
    toAppend('RecordingStarted', {
      recordingId,
      sessionId: 'ses_1',
      projectId,
      callId: 'CA1',
      startedAt: '2026-11-21T09:59:00Z',
    }),
    toAppend('RecordingCompleted', {
      recordingId,
      sessionId: 'ses_1',
      projectId,
      callId: 'CA1',
      durationSeconds: 1,
      files: specs,
      completedAt: '2026-11-21T10:00:00Z',
    }),
  ]);
  return { recordingId, paths: specs.map((s) => new URL(s.source.url).pathname) };
}

async function events(recordingId: string) {
  const out = [];
  for await (const e of store.readStream(recordingStream(recordingId))) out.push(e);
  return out;
}

async function outcomes(recordingId: string) {
  return (await events(recordingId)).filter(
    (e) => e.type === 'RecordingFileStored' || e.type === 'RecordingFailed',
  );
}

async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startBoss(): Promise<PgBoss> {
  const boss = createJobQueue(db.pool, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  bosses.push(boss);
  await boss.start();
  return boss;
}

const jobOf = (recordingId: string, objectIndex: number, url: string): MediaFetchJobData => ({
  projectId,
  recordingId,
  sessionId: 'ses_1',
  callId: 'CA1',
  objectIndex,
  url,
  contentType: 'audio/wav',
});

describe('media fetcher (pg-boss jobs)', () => {
  it('enqueues one job per recording_server file, idempotently, and stores every file with its fact', async () => {
    const boss = await startBoss();
    const enqueuer = createFetchJobEnqueuer({
      pool: db.pool,
      store,
      boss,
      logger: silentLogger(),
      batchSize: 100,
      pollIntervalMs: 50,
    });
    const { recordingId, paths } = await completedRecording(3);
    // Readers see an append once no older transaction of the cluster is open (docs/log.md); with
    // other spec files running beside this one that can take a moment: 0 events read until then.
    await expect(untilEventsRead(() => enqueuer.runOnce())).rejects.toThrow(/queue exist/);
    await ensureMediaFetchQueue(boss, TEST_FETCH_OPTIONS);
    await enqueuer.runOnce();
    // Reading the same events again (a crash before the checkpoint moved) sends no second job.
    await db.pool.query('delete from log_consumer_checkpoints where name = $1', [MEDIA_FETCH_CONSUMER]);
    await enqueuer.runOnce();
    const { rows } = await db.pool.query(
      `select id from ${PG_BOSS_SCHEMA}.job where name = $1 and data->>'recordingId' = $2`,
      [MEDIA_FETCH_QUEUE, recordingId],
    );
    expect(rows.map((r) => r.id).sort()).toEqual(
      [0, 1, 2].map((i) => fetchJobId(projectId, recordingId, i)).sort(),
    );

    await workMediaFetchQueue(boss, deps, TEST_FETCH_OPTIONS);
    const stored = await waitFor(async () => {
      const found = await outcomes(recordingId);
      return found.length === 3 && found;
    });
    expect(stored.every((e) => e.type === 'RecordingFileStored')).toBe(true);
    for (const event of stored) {
      const i = event.data.objectIndex as number;
      expect(event.eventId).toBe(fileOutcomeEventId(projectId, recordingId, i));
      expect(event.data).toMatchObject({
        storageKey: `recordings/${projectId}/${recordingId}/${i}.wav`,
        contentType: 'audio/x-wav',
        bytes: server.media.get(paths[i]!)!.length,
        fileName: `${recordingId}-${i}.wav`,
      });
      expect(await readFile(join(mediaDir, event.data.storageKey as string))).toEqual(
        server.media.get(paths[i]!),
      );
      // Basic auth with the account's SID and token.
      expect(server.authorizations.get(paths[i]!)).toBe(
        `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString('base64')}`,
      );
    }
    // The job running again (a crash after the append) appends nothing.
    expect(
      await runMediaFetchJob(deps, jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`), {
        retryCount: 0,
        retryLimit: 3,
        timeoutMs: 5_000,
      }),
    ).toBe('already_recorded');
    expect(await outcomes(recordingId)).toHaveLength(3);
  });

  it('retries 5xx with backoff through pg-boss, then stores the file', async () => {
    const boss = await startBoss();
    const { recordingId, paths } = await completedRecording(1);
    server.behaviours.set(paths[0]!, { kind: 'status', status: 503, times: 2 });
    await workMediaFetchQueue(boss, deps, TEST_FETCH_OPTIONS);
    await createFetchJobEnqueuer({
      pool: db.pool,
      store,
      boss,
      logger: silentLogger(),
      batchSize: 100,
      pollIntervalMs: 50,
    }).runOnce();
    const [stored] = await waitFor(async () => {
      const found = await outcomes(recordingId);
      return found.length === 1 && found;
    }, 30_000);
    expect(stored?.type).toBe('RecordingFileStored');
    expect(server.hits.get(paths[0]!)).toBe(3);
  });

  it('fails a job whose data its schema refuses, logging why, and goes on with the next', async () => {
    const boss = await startBoss();
    const logger = silentLogger();
    const refused: unknown[] = [];
    logger.error = ((entry: unknown) => void refused.push(entry)) as typeof logger.error;
    await workMediaFetchQueue(boss, { ...deps, logger }, TEST_FETCH_OPTIONS);
    // A sender of another version: no callId, the index a string.
    const badId = await boss.send(MEDIA_FETCH_QUEUE, {
      projectId,
      recordingId: 'rec_x',
      objectIndex: '0',
      url: 'u',
    });
    const { recordingId, paths } = await completedRecording(1);
    await boss.send(MEDIA_FETCH_QUEUE, jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`));
    const [stored] = await waitFor(async () => {
      const found = await outcomes(recordingId);
      return found.length === 1 && found;
    });
    expect(stored?.type).toBe('RecordingFileStored');
    const bad = await waitFor(async () => {
      const { rows } = await db.pool.query<{ state: string; output: unknown }>(
        `select state, output from ${PG_BOSS_SCHEMA}.job where id = $1`,
        [badId],
      );
      return rows[0] && rows[0].state !== 'created' && rows[0].state !== 'active' && rows[0];
    });
    expect(['retry', 'failed']).toContain(bad.state);
    expect(JSON.stringify(bad.output)).toMatch(/callId.*objectIndex|objectIndex.*callId/);
    expect(refused).toContainEqual(
      expect.objectContaining({
        queue: MEDIA_FETCH_QUEUE,
        jobId: badId,
        issues: expect.arrayContaining([expect.objectContaining({ path: 'callId' })]),
      }),
    );
    // The URL, like every value of the job, stays out of the log.
    expect(JSON.stringify(refused)).not.toContain('"u"');
  });

  it('records auth_failed on 401 at once, without retrying', async () => {
    const { recordingId, paths } = await completedRecording(1);
    const job = jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`);
    await accounts.remove(ACCOUNT);
    await accounts.add({ accountSid: ACCOUNT, projectId, authToken: 'rotated-elsewhere' });
    try {
      expect(await runMediaFetchJob(deps, job, { retryCount: 0, retryLimit: 3, timeoutMs: 5_000 })).toBe(
        'failed',
      );
    } finally {
      await accounts.remove(ACCOUNT);
      await accounts.add({ accountSid: ACCOUNT, projectId, authToken: TOKEN });
    }
    const [failed] = await outcomes(recordingId);
    expect(failed?.data).toMatchObject({ objectIndex: 0, reason: 'auth_failed', detail: 'http 401' });
    expect(server.hits.get(paths[0]!)).toBe(1);
  });

  it('retries 404 and records media_not_available on the last attempt', async () => {
    const { recordingId, paths } = await completedRecording(1);
    server.media.delete(paths[0]!);
    const job = jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`);
    for (let retryCount = 0; retryCount < 3; retryCount++) {
      await expect(
        runMediaFetchJob(deps, job, { retryCount, retryLimit: 3, timeoutMs: 5_000 }),
      ).rejects.toMatchObject({
        name: 'RetryableFetchError',
      });
      expect(await outcomes(recordingId)).toEqual([]);
    }
    expect(await runMediaFetchJob(deps, job, { retryCount: 3, retryLimit: 3, timeoutMs: 5_000 })).toBe(
      'failed',
    );
    const [failed] = await outcomes(recordingId);
    expect(failed?.data).toMatchObject({ reason: 'media_not_available', detail: 'http 404' });
  });

  it('keeps spare attempts past the retry limit, and a spare attempt records the outcome', async () => {
    const boss = await startBoss();
    await ensureMediaFetchQueue(boss, TEST_FETCH_OPTIONS);
    expect((await boss.getQueue(MEDIA_FETCH_QUEUE))?.retryLimit).toBe(
      TEST_FETCH_OPTIONS.retryLimit + CRASH_SPARE_ATTEMPTS,
    );
    // The last attempt (retryCount 3) died with its worker: pg-boss runs a spare one, which records.
    const { recordingId, paths } = await completedRecording(1);
    server.media.delete(paths[0]!);
    const job = jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`);
    expect(await runMediaFetchJob(deps, job, { retryCount: 4, retryLimit: 3, timeoutMs: 5_000 })).toBe(
      'failed',
    );
    expect((await outcomes(recordingId)).map((e) => e.data.reason)).toEqual(['media_not_available']);
  });

  it('records storage_write_failed when media storage cannot write, on the last attempt', async () => {
    const { recordingId, paths } = await completedRecording(1);
    // A real filesystem failure: the storage directory is a file.
    const blocked = join(mediaDir, 'not-a-directory');
    await writeFile(blocked, 'x');
    const broken: MediaFetchDeps = { ...deps, media: createFilesystemMediaStorage(blocked) };
    const job = jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`);
    await expect(
      runMediaFetchJob(broken, job, { retryCount: 0, retryLimit: 1, timeoutMs: 5_000 }),
    ).rejects.toMatchObject({
      finalReason: 'storage_write_failed',
    });
    expect(await runMediaFetchJob(broken, job, { retryCount: 1, retryLimit: 1, timeoutMs: 5_000 })).toBe(
      'failed',
    );
    expect((await outcomes(recordingId))[0]?.data).toMatchObject({ reason: 'storage_write_failed' });
  });

  it('survives a connection reset mid-download: the attempt fails, the retry stores the whole file', async () => {
    const { recordingId, paths } = await completedRecording(1);
    server.behaviours.set(paths[0]!, { kind: 'reset', times: 1 });
    const job = jobOf(recordingId, 0, `${server.baseUrl}${paths[0]}`);
    await expect(
      runMediaFetchJob(deps, job, { retryCount: 0, retryLimit: 3, timeoutMs: 5_000 }),
    ).rejects.toMatchObject({
      name: 'RetryableFetchError',
    });
    expect(await media.head(`recordings/${projectId}/${recordingId}/0.wav`)).toBeNull();
    expect(await runMediaFetchJob(deps, job, { retryCount: 1, retryLimit: 3, timeoutMs: 5_000 })).toBe(
      'stored',
    );
    expect(await readFile(join(mediaDir, `recordings/${projectId}/${recordingId}/0.wav`))).toEqual(
      server.media.get(paths[0]!),
    );
  });

  it('loses and duplicates nothing when the worker process is killed mid-download', async () => {
    const { recordingId, paths } = await completedRecording(1);
    let stalled!: () => void;
    const midDownload = new Promise<void>((resolve) => {
      stalled = resolve;
    });
    server.behaviours.set(paths[0]!, { kind: 'stall', onStalled: () => stalled() });

    // Worker A, a separate process, takes the job and stalls half-way through the download.
    const script = fileURLToPath(new URL('./testing/fetchWorkerProcess.ts', import.meta.url));
    const child = spawn(process.execPath, ['--conditions=@parley/source', '--import', 'tsx', script], {
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        MEDIA_DIR: mediaDir,
        CHANNEL_CREDENTIALS_KEY: CREDENTIALS_KEY.toString('base64'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
    child.removeAllListeners('exit');
    // Enqueue only once worker A is ready, so that it (not this process) takes the job.
    const boss = await startBoss();
    await createFetchJobEnqueuer({
      pool: db.pool,
      store,
      boss,
      logger: silentLogger(),
      batchSize: 100,
      pollIntervalMs: 50,
    }).runOnce();
    await midDownload;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    // Killed: no object, no fact, the job still "active" in pg-boss.
    const key = `recordings/${projectId}/${recordingId}/0.wav`;
    expect(await media.head(key)).toBeNull();
    expect(await outcomes(recordingId)).toEqual([]);
    const jobId = fetchJobId(projectId, recordingId, 0);
    const state = async () =>
      (
        await db.pool.query<{ state: string }>(`select state from ${PG_BOSS_SCHEMA}.job where id = $1`, [
          jobId,
        ])
      ).rows[0]?.state;
    expect(await state()).toBe('active');

    // Worker B: the expired job comes back (pg-boss maintenance) and completes the download.
    await workMediaFetchQueue(boss, deps, TEST_FETCH_OPTIONS);
    const found = await waitFor(async () => {
      const o = await outcomes(recordingId);
      return o.length === 1 && (await state()) === 'completed' && o;
    }, 30_000);
    expect(found[0]).toMatchObject({ type: 'RecordingFileStored', data: { storageKey: key } });
    expect(await readFile(join(mediaDir, key))).toEqual(server.media.get(paths[0]!));
    expect(server.hits.get(paths[0]!)).toBe(2);
    // Only the complete object is visible under the recording's directory.
    expect(
      (await readdir(join(mediaDir, `recordings/${projectId}/${recordingId}`))).filter(
        (f) => !f.startsWith('.'),
      ),
    ).toEqual(['0.wav']);
  });
});
