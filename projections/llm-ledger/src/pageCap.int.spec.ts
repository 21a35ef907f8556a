import { randomUUID } from 'node:crypto';
import type { LedgerFilter } from '@parley/analytics';
import { eventExamples } from '@parley/events/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYLOAD_LIMIT_BYTES } from './ledgerRow.js';
import { type LedgerPage, listLedger } from './listLedger.js';
import { GENERATIONS_BUDGET_BYTES, jsonBytes, RESPONSE_BODY_LIMIT_BYTES } from './pageBudget.js';
import { type CallInput, createHarness, type Harness } from './spec/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ batchSize: 1000 });
});
afterAll(() => h.close());

const from = new Date('2025-05-01T00:00:00.000Z');
const to = new Date('2025-05-02T00:00:00.000Z');

function call(projectId: string, i: number, payload?: CallInput['payload']): CallInput {
  const { payload: _none, ...example } = eventExamples.LlmCallRecorded;
  return {
    ...example,
    projectId,
    sessionId: `sess_${Math.floor(i / 50)}`,
    callId: `llm_${String(i).padStart(5, '0')}`,
    startedAt: new Date(from.getTime() + i * 1000).toISOString(),
    ...(payload === undefined ? {} : { payload }),
  };
}

const filter = (projectId: string, patch: Partial<LedgerFilter> = {}): LedgerFilter => ({
  projectId,
  from,
  to,
  sort: { field: 'timestamp', direction: 'asc' },
  dataMode: 'full',
  limit: 10_000,
  offset: 0,
  ...patch,
});

/** The body the API sends for a page (spec 000 §2.3 envelope). */
const body = (f: LedgerFilter, page: LedgerPage) =>
  Buffer.byteLength(
    JSON.stringify({
      success: true,
      statusCode: 200,
      total: page.total,
      limit: f.limit,
      offset: f.offset,
      dataMode: f.dataMode,
      hasMore: page.hasMore,
      generations: page.generations,
    }),
  );

/** Pages through with offset += rows returned, checking every page's size; returns all ids. */
async function pageThrough(f: LedgerFilter): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  for (let offset = 0; ; ) {
    const page = await listLedger(h.db.pool, { ...f, offset });
    expect(body({ ...f, offset }, page)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT_BYTES);
    ids.push(...page.generations.map((g) => g.id));
    pages.push(page.generations.length);
    offset += page.generations.length;
    expect(page.hasMore).toBe(offset < page.total);
    if (!page.hasMore) return { ids, pages };
    expect(page.generations.length).toBeGreaterThan(0);
  }
}

describe('the 1 MiB page cap', () => {
  it('shortens full pages with large payloads (counted in UTF-8 bytes); total and hasMore stay true', async () => {
    const projectId = `proj_${randomUUID()}`;
    // ~200 KB of characters, ~400 KB of UTF-8 bytes each: two-byte and three-byte characters.
    const calls = Array.from({ length: 12 }, (_, i) =>
      call(projectId, i, { prompt: 'é'.repeat(100_000), response: `✓${'ü'.repeat(99_999)} ${i}` }),
    );
    await h.record(calls);
    await h.caughtUp();

    const f = filter(projectId, { limit: 10 });
    const page = await listLedger(h.db.pool, f);
    expect(page.total).toBe(12);
    expect(page.hasMore).toBe(true);
    expect(page.generations).toHaveLength(2); // 3 × ~400 KB would pass 1 MiB
    expect(page.generations.every((g) => g.payload !== undefined)).toBe(true);
    expect(body(f, page)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT_BYTES);

    const all = await pageThrough(f);
    expect(all.ids).toEqual(calls.map((c) => `${c.sessionId}:${c.callId}`));
    expect(all.pages).toEqual([2, 2, 2, 2, 2, 2]);

    // The summary mode never reads payloads: the same page is full.
    const summary = await listLedger(h.db.pool, { ...f, dataMode: 'summary' });
    expect(summary.generations).toHaveLength(10);
    expect(summary.generations.every((g) => !('payload' in g) && g.payloadState === 'available')).toBe(true);
  });

  it('fills a page up to the budget, not short of it', async () => {
    const projectId = `proj_${randomUUID()}`;
    const calls = Array.from({ length: 40 }, (_, i) =>
      call(projectId, i, { prompt: 'x'.repeat(30_000 + i * 997), response: 'ok' }),
    );
    await h.record(calls);
    await h.caughtUp();
    const f = filter(projectId);
    const page = await listLedger(h.db.pool, f);
    expect(page.hasMore).toBe(true);
    expect(jsonBytes(page.generations)).toBeLessThanOrEqual(GENERATIONS_BUDGET_BYTES);
    // One more row would not have fitted.
    const next = await listLedger(h.db.pool, { ...f, offset: page.generations.length, limit: 1 });
    expect(jsonBytes([...page.generations, ...next.generations])).toBeGreaterThan(GENERATIONS_BUDGET_BYTES);
    const all = await pageThrough(f);
    expect(all.ids).toHaveLength(40);
    expect(new Set(all.ids).size).toBe(40);
  });

  it('caps summary pages too: 10,000 rows of facts are several MiB', async () => {
    const projectId = `proj_${randomUUID()}`;
    const calls = Array.from({ length: 3000 }, (_, i) => call(projectId, i));
    await h.record(calls);
    await h.caughtUp();
    const f = filter(projectId, { dataMode: 'summary' });
    const page = await listLedger(h.db.pool, f);
    expect(page.total).toBe(3000);
    expect(page.hasMore).toBe(true);
    expect(page.generations.length).toBeGreaterThan(1000);
    expect(page.generations.length).toBeLessThan(3000);
    expect(body(f, page)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT_BYTES);
    const all = await pageThrough(f);
    expect(all.ids).toEqual(calls.map((c) => `${c.sessionId}:${c.callId}`));
  });

  it('does not keep a payload that could never fit a page', async () => {
    const projectId = `proj_${randomUUID()}`;
    await h.record([
      call(projectId, 0, { prompt: 'y'.repeat(PAYLOAD_LIMIT_BYTES), response: null }),
      call(projectId, 1, { prompt: 'small', response: 'fine' }),
    ]);
    await h.caughtUp();
    const page = await listLedger(h.db.pool, filter(projectId));
    expect(page.generations.map((g) => [g.payloadState, g.payload])).toEqual([
      ['too_large', undefined],
      ['available', { prompt: 'small', response: 'fine' }],
    ]);
    expect('payload' in (page.generations[0] ?? {})).toBe(false);
  });
});
