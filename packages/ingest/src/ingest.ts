import type { EventStore } from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import { type ItemResult, ingestBatch } from './ingestBatch.js';
import { type IngestScope, prepareItems } from './prepareItems.js';

export interface IngestResponse {
  accepted: number;
  rejected: number;
  results: ItemResult[];
}

/** A validated request's items, in the key's scope: every item gets a result, in order. */
export async function ingest(
  deps: { store: EventStore; pool?: Pool; normaliseCallerNumber: (raw: string) => string },
  scope: IngestScope,
  items: readonly unknown[],
): Promise<IngestResponse> {
  const results = await ingestBatch(deps, prepareItems(items, scope, deps.normaliseCallerNumber));
  const accepted = results.filter((r) => r.status === 'accepted').length;
  return { accepted, rejected: results.length - accepted, results };
}
