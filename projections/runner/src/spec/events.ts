import { randomUUID } from 'node:crypto';
import type { EventMetadata, RecordedEvent } from '@parley/eventstore';
import fc from 'fast-check';

/** Recorded events for pure tests: positions and times increase with the index. */
export function recorded(
  specs: ReadonlyArray<{
    type: string;
    stream: string;
    data?: Record<string, unknown>;
    metadata?: EventMetadata;
  }>,
  from = 0,
): RecordedEvent[] {
  return specs.map((s, i) => ({
    eventId: randomUUID(),
    type: s.type,
    schemaVersion: 1,
    data: s.data ?? {},
    metadata: s.metadata ?? {},
    stream: s.stream,
    revision: 0n,
    position: { commit: BigInt(from + i + 1), prepare: BigInt(from + i + 1) },
    recordedAt: new Date(Date.UTC(2025, 0, 1) + (from + i) * 1000),
  }));
}

const streams = ['s-a', 's-b', 's-c', 's-d'];

/** Tally events, plus `Noise`, a type the tally projection does not read. */
export const tallySpec = fc.record({
  type: fc.constantFrom('Added', 'Added', 'Removed', 'Moved', 'Reset', 'Noise'),
  stream: fc.constantFrom(...streams),
  data: fc.record({ amount: fc.integer({ min: 0, max: 1000 }), to: fc.constantFrom(...streams) }),
});

/** Splits a list into consecutive chunks at the given cut points. */
export function chunks<T>(items: readonly T[], cuts: readonly number[]): T[][] {
  const points = [...new Set(cuts.map((c) => c % (items.length + 1)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let start = 0;
  for (const p of [...points, items.length]) {
    if (p > start) out.push(items.slice(start, p));
    start = Math.max(start, p);
  }
  return out;
}
