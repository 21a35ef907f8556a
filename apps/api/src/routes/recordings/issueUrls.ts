import { recordingStream, toAppend } from '@parley/events';
import { deriveEventId } from '@parley/ingest';
import { type Disposition, proxiedMediaPath } from '@parley/media';
import {
  fileKey,
  type IssuedUrl,
  type RecordingRecord,
  type StoredFileRef,
  storedFiles,
} from '@parley/recordings';
import type { FastifyBaseLogger } from 'fastify';
import type { RecordingsRouteOptions } from './options.js';

export interface IssueContext {
  projectId: string;
  tenantId: string;
  disposition: Disposition;
  ttlSeconds: number;
  log: FastifyBaseLogger;
}

type Deps = Pick<RecordingsRouteOptions, 'storage' | 'tokens' | 'append'> & { now: () => Date };

/**
 * Issues a URL for every stored file of the recordings (external files need none: they pass
 * through as they are). Per file: head the object (gone: media_object_missing, recorded in the log
 * once), then pre-sign it (s3) or mint a media token for a proxied path (filesystem). A failure to
 * issue is url_signing_failed for that file only, so the response is partial, never an error.
 */
export async function issueUrls(
  deps: Deps,
  context: IssueContext,
  recordings: readonly RecordingRecord[],
): Promise<Map<string, IssuedUrl>> {
  const byId = new Map(recordings.map((r) => [r.recordingId, r]));
  const files = storedFiles(recordings);
  const outcomes = await Promise.all(files.map((file) => issueOne(deps, context, file, byId)));
  return new Map(files.map((file, i) => [fileKey(file.recordingId, file.objectIndex), outcomes[i]!]));
}

async function issueOne(
  deps: Deps,
  context: IssueContext,
  file: StoredFileRef,
  recordings: ReadonlyMap<string, RecordingRecord>,
): Promise<IssuedUrl> {
  const where = { recordingId: file.recordingId, objectIndex: file.objectIndex };
  try {
    const info = await deps.storage.head(file.storageKey);
    if (info === null) {
      const record = recordings.get(file.recordingId);
      if (record !== undefined) await recordObjectMissing(deps, context, record, file.objectIndex);
      return { failure: 'media_object_missing' };
    }
    if (deps.storage.presignGet !== undefined) {
      const url = await deps.storage.presignGet(file.storageKey, {
        expiresInSeconds: context.ttlSeconds,
        disposition: context.disposition,
        ...(file.fileName === null ? {} : { fileName: file.fileName }),
        ...(file.contentType === null ? {} : { contentType: file.contentType }),
      });
      return { url, urlKind: 'signed', expiresIn: context.ttlSeconds };
    }
    // The token lives ttlSeconds from now, like a signed URL: expiresIn is the TTL, as for those
    // (computing it from the store's expiresAt and a later clock reading made it 899 at random).
    const { token } = await deps.tokens.issue({ projectId: context.projectId, ...where }, context.ttlSeconds);
    const url = proxiedMediaPath({
      projectId: context.projectId,
      ...where,
      token,
      disposition: context.disposition,
    });
    const expiresIn = context.ttlSeconds;
    return { url, urlKind: 'proxied', expiresIn };
  } catch (err) {
    // Only the error's name: storage and signer messages can carry keys or URLs.
    context.log.warn({ ...where, errorName: errorName(err) }, 'media URL not issued');
    return { failure: 'url_signing_failed' };
  }
}

/**
 * A file the log says is stored but whose object is gone: RecordingFailed media_object_missing,
 * with an event id derived from the file so that every later request appends nothing more. If the
 * append fails the file is still reported missing; the next request tries again.
 */
export async function recordObjectMissing(
  deps: Pick<Deps, 'append' | 'now'>,
  context: { tenantId?: string; log: FastifyBaseLogger },
  record: RecordingRecord,
  objectIndex: number,
): Promise<void> {
  const event = toAppend(
    'RecordingFailed',
    {
      recordingId: record.recordingId,
      sessionId: record.sessionId,
      projectId: record.projectId,
      callId: record.callId,
      objectIndex,
      reason: 'media_object_missing',
      detail: 'stored object not found when issuing its URL',
      failedAt: deps.now().toISOString(),
    },
    context.tenantId === undefined ? {} : { tenantId: context.tenantId },
    deriveEventId(record.projectId, `media-object-missing/${record.recordingId}/${objectIndex}`),
  );
  try {
    await deps.append(recordingStream(record.recordingId), [event]);
  } catch (err) {
    context.log.warn(
      { recordingId: record.recordingId, objectIndex, errorName: errorName(err) },
      'RecordingFailed media_object_missing not recorded',
    );
  }
}

const errorName = (err: unknown) => (err instanceof Error ? err.name : typeof err);
