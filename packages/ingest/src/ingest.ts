import type { EventStore } from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import { type ItemResult, ingestBatch } from './ingestBatch.js';
import { type IngestScope, prepareItems } from './prepareItems.js';

export interface IngestResponse {
  accepted: number;
  rejected: number;
  results: ItemResult[];
}

export interface IngestDeps {
  store: EventStore;
  pool?: Pool;
  normaliseCallerNumber: (raw: string) => string;
  /** The project's recording retention in days (null: none); asked only for `recording.started` items. */
  recordingRetentionDays?: (projectId: string) => Promise<number | null | undefined>;
}

const startsRecording = (item: unknown) =>
  typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'recording.started';

/** A validated request's items, in the key's scope: every item gets a result, in order. */
export async function ingest(
  deps: IngestDeps,
  scope: IngestScope,
  items: readonly unknown[],
): Promise<IngestResponse> {
  let fullScope = scope;
  if (
    deps.recordingRetentionDays &&
    scope.recordingRetentionDays === undefined &&
    items.some(startsRecording)
  ) {
    fullScope = {
      ...scope,
      recordingRetentionDays: (await deps.recordingRetentionDays(scope.projectId)) ?? null,
    };
  }
  const results = await ingestBatch(
    deps,
    prepareItems(items, fullScope, deps.normaliseCallerNumber),
    scope.projectId,
  );
  const accepted = results.filter((r) => r.status === 'accepted').length;
  return { accepted, rejected: results.length - accepted, results };
}
