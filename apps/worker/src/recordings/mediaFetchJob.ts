import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { recordingStream, toAppend } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import { type MediaStorage, recordingMediaKey } from '@parley/media';
import { defineJob, ensureQueue, type JobPayload, type Logger, parseJobPayload } from '@parley/platform';
import type { TelephonyAccountSecrets } from '@parley/telephony';
import type { PgBoss } from 'pg-boss';
import { z } from 'zod';
import { fileOutcomeEventId } from './eventIds.js';

export const MEDIA_FETCH_QUEUE = 'recording-media-fetch';

/** One recording_server file to fetch; everything its RecordingFileStored needs. */
export const mediaFetchJob = defineJob(
  MEDIA_FETCH_QUEUE,
  z.object({
    projectId: z.string().min(1),
    recordingId: z.string().min(1),
    sessionId: z.string().min(1),
    callId: z.string().min(1),
    objectIndex: z.int().min(0),
    /** The recording server's URL (grants nothing without the account's credentials). Never logged. */
    url: z.string().min(1),
    fileName: z.string().optional(),
    channel: z.enum(['caller', 'agent', 'mixed']).optional(),
    recordingType: z.string().optional(),
    contentType: z.string().optional(),
    recordingStartTime: z.string().optional(),
    recordingEndTime: z.string().optional(),
    durationSeconds: z.number().optional(),
  }),
);
export type MediaFetchJobData = JobPayload<typeof mediaFetchJob>;

export interface MediaFetchOptions {
  /** Attempts after the first (pg-boss retryLimit). */
  retryLimit: number;
  /** Seconds before the first retry; doubled each time with jitter (pg-boss retryBackoff). */
  retryDelaySeconds: number;
  /** A job still active after this long is taken to be lost (worker died) and retried. */
  expireInSeconds: number;
  /** Per request: the download is aborted (and retried) when it takes longer. */
  requestTimeoutMs: number;
}

export const DEFAULT_MEDIA_FETCH_OPTIONS: MediaFetchOptions = {
  retryLimit: 8,
  retryDelaySeconds: 15,
  expireInSeconds: 15 * 60,
  requestTimeoutMs: 10 * 60_000,
};

export interface MediaFetchDeps {
  store: EventStore;
  media: MediaStorage;
  /** Telephony accounts of a project, with their recording-server credentials. */
  accountsOfProject(projectId: string): Promise<TelephonyAccountSecrets[]>;
  logger: Logger;
  fetch?: typeof fetch;
  now?: () => Date;
}

type Failure = 'media_not_available' | 'auth_failed' | 'storage_write_failed';

/** An attempt that failed in a way worth retrying; on the last attempt it becomes `finalReason`. */
class RetryableFetchError extends Error {
  override readonly name = 'RetryableFetchError';
  constructor(
    readonly finalReason: Failure,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/**
 * The account whose credentials fetch this URL: the project's account whose SID the URL names
 * (Twilio: /Accounts/<AccountSid>/Recordings/…), else its oldest; none: fetch without credentials.
 */
export function credentialsFor(url: string, accounts: readonly TelephonyAccountSecrets[]) {
  let path = '';
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const named = accounts.find((a) => path.split('/').includes(a.accountSid));
  return (named ?? accounts[0])?.recordingCredentials;
}

const EXTENSIONS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/mp4': 'm4a',
};

function extensionOf(contentType: string | undefined, url: string): string | undefined {
  const byType =
    contentType === undefined ? undefined : EXTENSIONS[contentType.split(';')[0]!.trim().toLowerCase()];
  if (byType) return byType;
  try {
    return /\.([A-Za-z0-9]{1,10})$/.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  } catch {
    return undefined;
  }
}

async function outcomeRecorded(store: EventStore, job: MediaFetchJobData): Promise<boolean> {
  const id = fileOutcomeEventId(job.projectId, job.recordingId, job.objectIndex);
  for await (const event of store.readStream(recordingStream(job.recordingId))) {
    if (event.eventId === id) return true;
  }
  return false;
}

/**
 * Downloads one file into media storage. Returns the storage key and size; throws
 * RetryableFetchError (5xx, 404, network, storage) or a final `{ reason }` (401/403).
 */
async function download(
  deps: MediaFetchDeps,
  job: MediaFetchJobData,
  timeoutMs: number,
): Promise<{ storageKey: string; bytes: number; contentType: string | undefined }> {
  const accounts = await deps.accountsOfProject(job.projectId);
  const credentials = credentialsFor(job.url, accounts);
  const headers: Record<string, string> = { accept: 'audio/*, */*;q=0.5' };
  if (credentials) {
    headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  }
  let response: Response;
  try {
    response = await (deps.fetch ?? fetch)(job.url, {
      headers,
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new RetryableFetchError('media_not_available', `network: ${(err as Error).name}`);
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel().catch(() => {});
    throw new FinalFetchFailure('auth_failed', `http ${response.status}`);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel().catch(() => {});
    // 404 right after completion happens while the provider finishes the file: retried too.
    throw new RetryableFetchError('media_not_available', `http ${response.status}`);
  }
  const contentType = response.headers.get('content-type')?.split(';')[0]?.trim() || job.contentType;
  const storageKey = recordingMediaKey({
    projectId: job.projectId,
    recordingId: job.recordingId,
    objectIndex: job.objectIndex,
    ...(extensionOf(contentType, job.url) === undefined
      ? {}
      : { extension: extensionOf(contentType, job.url)! }),
  });
  let sourceFailed = false;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  body.on('error', () => {
    sourceFailed = true;
  });
  const expected = Number(response.headers.get('content-length') ?? Number.NaN);
  try {
    const info = await deps.media.put(storageKey, body, contentType ? { contentType } : undefined);
    if (Number.isFinite(expected) && info.bytes !== expected) {
      throw new RetryableFetchError('media_not_available', 'truncated download');
    }
    return { storageKey, bytes: info.bytes, contentType };
  } catch (err) {
    if (err instanceof RetryableFetchError) throw err;
    if (sourceFailed) throw new RetryableFetchError('media_not_available', 'network: download interrupted');
    throw new RetryableFetchError('storage_write_failed', `storage: ${(err as Error).name}`);
  }
}

class FinalFetchFailure extends Error {
  override readonly name = 'FinalFetchFailure';
  constructor(
    readonly reason: Failure,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export type MediaFetchResult = 'stored' | 'failed' | 'already_recorded' | 'retry';

/**
 * One attempt of one fetch job. Idempotent: the outcome event (stored or failed) has one id per
 * file, so a job that runs again after a crash, at any point, appends nothing twice; the object
 * is written atomically under a deterministic key. A retryable failure throws (pg-boss retries
 * with backoff) until the last attempt, which records the failure instead.
 */
export async function runMediaFetchJob(
  deps: MediaFetchDeps,
  job: MediaFetchJobData,
  attempt: { retryCount: number; retryLimit: number; timeoutMs: number },
): Promise<MediaFetchResult> {
  if (await outcomeRecorded(deps.store, job)) return 'already_recorded';
  const now = (deps.now ?? (() => new Date()))().toISOString();
  const scope = { recordingId: job.recordingId, sessionId: job.sessionId, projectId: job.projectId };
  const stream = recordingStream(job.recordingId);
  const eventId = fileOutcomeEventId(job.projectId, job.recordingId, job.objectIndex);
  const fail = async (reason: Failure, detail: string) => {
    await deps.store.append(stream, [
      toAppend(
        'RecordingFailed',
        { ...scope, callId: job.callId, objectIndex: job.objectIndex, reason, detail, failedAt: now },
        { projectId: job.projectId },
        eventId,
      ),
    ]);
    deps.logger.warn(
      { recordingId: job.recordingId, objectIndex: job.objectIndex, reason, detail },
      'recording media fetch failed',
    );
    return 'failed' as const;
  };
  try {
    const stored = await download(deps, job, attempt.timeoutMs);
    await deps.store.append(stream, [
      toAppend(
        'RecordingFileStored',
        {
          ...scope,
          callId: job.callId,
          objectIndex: job.objectIndex,
          ...(job.fileName === undefined ? {} : { fileName: job.fileName }),
          ...(job.channel === undefined ? {} : { channel: job.channel }),
          ...(job.recordingType === undefined ? {} : { recordingType: job.recordingType }),
          ...(stored.contentType === undefined ? {} : { contentType: stored.contentType }),
          bytes: stored.bytes,
          ...(job.recordingStartTime === undefined ? {} : { recordingStartTime: job.recordingStartTime }),
          ...(job.recordingEndTime === undefined ? {} : { recordingEndTime: job.recordingEndTime }),
          storageKey: stored.storageKey,
          ...(job.durationSeconds === undefined ? {} : { durationSeconds: job.durationSeconds }),
          storedAt: now,
        },
        { projectId: job.projectId },
        eventId,
      ),
    ]);
    return 'stored';
  } catch (err) {
    if (err instanceof FinalFetchFailure) return fail(err.reason, err.detail);
    if (err instanceof RetryableFetchError) {
      if (attempt.retryCount >= attempt.retryLimit) return fail(err.finalReason, err.detail);
      deps.logger.info(
        {
          recordingId: job.recordingId,
          objectIndex: job.objectIndex,
          detail: err.detail,
          retry: attempt.retryCount + 1,
        },
        'recording media fetch will be retried',
      );
    }
    throw err;
  }
}

/**
 * Attempts pg-boss keeps beyond the fetch's own retry limit. An attempt at or past the limit that
 * fails records the final reason; one that dies with its worker (the job expires) records nothing,
 * so these spare attempts let a crash during the last attempt still end in an outcome event
 * instead of a file left `media_in_progress`.
 */
export const CRASH_SPARE_ATTEMPTS = 3;

/** Creates the queue with its policy (retries with backoff, expiry), or updates it. */
export async function ensureMediaFetchQueue(boss: PgBoss, options: MediaFetchOptions): Promise<void> {
  const policy = {
    retryLimit: options.retryLimit + CRASH_SPARE_ATTEMPTS,
    retryDelay: options.retryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: options.expireInSeconds,
  };
  await ensureQueue(boss, MEDIA_FETCH_QUEUE, policy);
}

/** Ensures the queue and starts working it. */
export async function workMediaFetchQueue(
  boss: PgBoss,
  deps: MediaFetchDeps,
  options: MediaFetchOptions & { pollingIntervalSeconds?: number },
): Promise<string> {
  await ensureMediaFetchQueue(boss, options);
  return boss.work(
    MEDIA_FETCH_QUEUE,
    { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2 },
    async (jobs) => {
      for (const job of jobs) {
        await runMediaFetchJob(deps, parseJobPayload(mediaFetchJob, job, deps.logger), {
          retryCount: job.retryCount,
          // The fetch's own limit: the queue's is higher by the crash spares.
          retryLimit: options.retryLimit,
          timeoutMs: options.requestTimeoutMs,
        });
      }
    },
  );
}
