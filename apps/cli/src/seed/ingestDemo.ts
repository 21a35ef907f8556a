import { type IngestResponse, MAX_INGEST_ITEMS } from '@parley/ingest';
import type { Progress } from '../progress.js';
import { type DemoItem, type DemoPlan, demoItems } from './demoSessions.js';

export interface IngestDemoResult {
  items: number;
  accepted: number;
  rejected: number;
  /** The first few rejections (code and where), for the message; never item content. */
  rejections: string[];
}

/** Items per session, for the progress bar's first estimate (refined as sessions are made). */
export const ITEMS_PER_SESSION_GUESS = 25;
const REJECTIONS_KEPT = 5;

/**
 * Submits the demo items in batches of up to MAX_INGEST_ITEMS, one after the other (a session's
 * items may span two batches; its stream keeps their order because batches are sequential).
 */
export async function ingestDemo(
  plan: DemoPlan,
  submit: (items: readonly DemoItem[]) => Promise<IngestResponse>,
  progress: Progress,
): Promise<IngestDemoResult> {
  const result: IngestDemoResult = { items: 0, accepted: 0, rejected: 0, rejections: [] };
  let buffer: DemoItem[] = [];
  let sessionsMade = 0;
  let made = 0;
  const flush = async (items: DemoItem[]) => {
    const response = await submit(items);
    result.items += items.length;
    result.accepted += response.accepted;
    result.rejected += response.rejected;
    for (const r of response.results) {
      if (r.status === 'rejected' && result.rejections.length < REJECTIONS_KEPT) {
        const where = r.error.details.issues.map((i) => i.path).join(', ');
        result.rejections.push(`${r.id ?? `#${r.index}`}: ${r.error.code}${where ? ` (${where})` : ''}`);
      }
    }
    const perSession = sessionsMade > 0 ? made / sessionsMade : ITEMS_PER_SESSION_GUESS;
    progress.update(result.items, Math.round(made + (plan.sessions - sessionsMade) * perSession));
  };
  for (const items of demoItems(plan)) {
    sessionsMade += 1;
    made += items.length;
    buffer.push(...items);
    while (buffer.length >= MAX_INGEST_ITEMS) {
      await flush(buffer.slice(0, MAX_INGEST_ITEMS));
      buffer = buffer.slice(MAX_INGEST_ITEMS);
    }
  }
  if (buffer.length > 0) await flush(buffer);
  return result;
}
