import type {
  FileFailureReason,
  FileState,
  GoneReason,
  RecordingFileRecord,
  RecordingPhase,
} from '@parley/recordings';
import { type FileMeta, type RecordingFacts, WHOLE_RECORDING } from './recordingFacts.js';

/** The recording as the read model states it, computed from its facts alone. */
export interface DerivedRecording {
  callId: string;
  createdAt: string;
  durationSeconds: number | null;
  immutable: boolean;
  retentionExpiresAt: string | null;
  phase: RecordingPhase;
  failureReason: FileFailureReason | null;
  files: RecordingFileRecord[];
  /** Gone (retention expired or deleted) while some stored object's media is not yet deleted. */
  mediaToDelete: boolean;
}

const ms = (iso: string): number => Date.parse(iso);
/** Times are answered in UTC, as createdAt is (whatever offset the event carried). */
const isoOrNull = (iso: string | null): string | null => (iso === null ? null : new Date(iso).toISOString());

/** The cause a gone recording's media is deleted for; null while it is not gone. */
export function goneCause(facts: RecordingFacts): GoneReason | null {
  if (facts.deleted) return 'deleted';
  if (facts.retentionExpired) return 'retention_expired';
  return null;
}

/** Stored objects whose media has not been deleted yet, by objectIndex. */
export function undeletedObjects(facts: RecordingFacts): Array<{ objectIndex: number; storageKey: string }> {
  return Object.entries(facts.stored)
    .filter(([index]) => facts.mediaDeleted[index] === undefined)
    .map(([index, stored]) => ({ objectIndex: Number(index), storageKey: stored.storageKey }))
    .sort((a, b) => a.objectIndex - b.objectIndex);
}

function fileState(facts: RecordingFacts, index: string): FileState {
  const gone = goneCause(facts);
  if (gone) return { kind: 'gone', reason: gone };
  const stored = facts.stored[index];
  const failed = facts.failed[index];
  // A failure after the file was stored (its object went missing) outranks it; one before it
  // (a retried fetch that then succeeded) does not. Decided by the events' own times, not order.
  if (failed && (!stored || ms(failed.failedAt) >= ms(stored.storedAt))) {
    return { kind: 'failed', reason: failed.reason };
  }
  if (stored) return { kind: 'stored', storageKey: stored.storageKey };
  const whole = facts.failed[WHOLE_RECORDING];
  if (whole) return { kind: 'failed', reason: whole.reason };
  const spec = facts.completed?.files.find((f) => String(f.objectIndex) === index);
  if (spec?.source.kind === 'external') return { kind: 'external', url: spec.source.url };
  return { kind: 'pending' };
}

function fileRecord(facts: RecordingFacts, index: string): RecordingFileRecord {
  const spec = facts.completed?.files.find((f) => String(f.objectIndex) === index);
  const stored = facts.stored[index];
  // What the stored object says outranks what the completion listed.
  const pick = <K extends keyof FileMeta>(key: K): NonNullable<FileMeta[K]> | null =>
    stored?.[key] ?? spec?.[key] ?? null;
  return {
    objectIndex: Number(index),
    fileName: pick('fileName'),
    channel: pick('channel'),
    recordingType: pick('recordingType'),
    contentType: pick('contentType'),
    bytes: stored?.bytes ?? 0,
    recordingStartTime: isoOrNull(pick('recordingStartTime')),
    recordingEndTime: isoOrNull(pick('recordingEndTime')),
    state: fileState(facts, index),
  };
}

function phaseOf(facts: RecordingFacts, fileCount: number): RecordingPhase {
  const gone = goneCause(facts);
  if (gone) return gone;
  if (facts.failed[WHOLE_RECORDING]) return 'failed';
  return facts.completed || fileCount > 0 ? 'completed' : 'started';
}

function firstCallId(facts: RecordingFacts): string {
  if (facts.started) return facts.started.callId;
  if (facts.completed) return facts.completed.callId;
  const byIndex = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  for (const [, stored] of Object.entries(facts.stored).sort(byIndex)) return stored.callId;
  for (const [, failed] of Object.entries(facts.failed).sort(byIndex)) {
    if (failed.callId !== undefined) return failed.callId;
  }
  return '';
}

export function recordingFromFacts(facts: RecordingFacts): DerivedRecording {
  const indexes = new Set<string>([
    ...(facts.completed?.files.map((f) => String(f.objectIndex)) ?? []),
    ...Object.keys(facts.stored),
    ...Object.keys(facts.failed).filter((k) => k !== WHOLE_RECORDING),
  ]);
  const files = [...indexes]
    .map((index) => fileRecord(facts, index))
    .sort((a, b) => a.objectIndex - b.objectIndex);
  const durations = [
    facts.completed?.durationSeconds,
    ...Object.values(facts.stored).map((s) => s.durationSeconds),
  ].filter((d): d is number => d !== undefined);
  const phase = phaseOf(facts, files.length);
  return {
    callId: firstCallId(facts),
    createdAt: new Date(facts.started?.startedAt ?? facts.earliestAt).toISOString(),
    durationSeconds: durations.length === 0 ? null : Math.max(...durations),
    immutable: Object.values(facts.holds).some((h) => h.placed && !h.lifted),
    retentionExpiresAt:
      facts.started?.retentionExpiresAt === undefined
        ? null
        : new Date(facts.started.retentionExpiresAt).toISOString(),
    phase,
    failureReason: phase === 'failed' ? (facts.failed[WHOLE_RECORDING]?.reason ?? null) : null,
    files,
    mediaToDelete: goneCause(facts) !== null && undeletedObjects(facts).length > 0,
  };
}
