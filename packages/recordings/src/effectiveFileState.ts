import type { FileState, RecordingFileRecord, RecordingRecord } from './types.js';

/**
 * A file's state as the API must see it: a recording that was deleted or whose retention expired
 * has no media left, whatever its files last said; a recording that failed as a whole failed every
 * file that was not stored or external.
 */
export function effectiveFileState(record: RecordingRecord, file: RecordingFileRecord): FileState {
  if (record.phase === 'deleted') return { kind: 'gone', reason: 'deleted' };
  if (record.phase === 'retention_expired') return { kind: 'gone', reason: 'retention_expired' };
  if (record.phase === 'failed' && record.failureReason !== null && file.state.kind === 'pending') {
    return { kind: 'failed', reason: record.failureReason };
  }
  return file.state;
}

/** A stored file the API route must issue a URL for (head the object, sign or mint a token). */
export interface StoredFileRef {
  recordingId: string;
  objectIndex: number;
  storageKey: string;
  fileName: string | null;
  contentType: string | null;
}

/**
 * Every stored file of these recordings, in response order: what the route issues URLs for and
 * what counts against RECORDING_PUBLIC_RECORDING_OBJECT_LIMIT (spec 000 §8 "stored files").
 */
export function storedFiles(recordings: readonly RecordingRecord[]): StoredFileRef[] {
  const refs: StoredFileRef[] = [];
  for (const record of recordings) {
    for (const file of sortedFiles(record)) {
      const state = effectiveFileState(record, file);
      if (state.kind !== 'stored') continue;
      refs.push({
        recordingId: record.recordingId,
        objectIndex: file.objectIndex,
        storageKey: state.storageKey,
        fileName: file.fileName,
        contentType: file.contentType,
      });
    }
  }
  return refs;
}

export function sortedFiles(record: RecordingRecord): RecordingFileRecord[] {
  return [...record.files].sort((a, b) => a.objectIndex - b.objectIndex);
}
