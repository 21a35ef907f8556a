import { randomUUID } from 'node:crypto';
import type { LedgerFilter } from '@parley/analytics';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ledgerWhere, listLedger } from './listLedger.js';
import { fixtureCalls, window } from './spec/fixture.js';
import { createHarness, type Harness } from './spec/harness.js';

let h: Harness;
const projectId = `proj_${randomUUID()}`;
const DAY = 86_400_000;

// The fixture's 80 calls spread over four days (call i moved i % 4 days on), and recorded twice for
// a quarter of them (a call recorded again replaces its row: the rollup must move it, not add it).
beforeAll(async () => {
  h = await createHarness();
  const calls = fixtureCalls(projectId, 80).map((call, i) => ({
    ...call,
    startedAt: new Date(new Date(call.startedAt).getTime() + (i % 4) * DAY).toISOString(),
  }));
  const again = calls
    .filter((_, i) => i % 4 === 1)
    .map((call) => ({ ...call, status: 'failed' as const, statusCode: 500 }));
  await h.record(calls);
  await h.record(again);
  await h.caughtUp();
});
afterAll(() => h.close());

async function countedRowByRow(filter: LedgerFilter): Promise<number> {
  const { sql, params } = ledgerWhere(filter);
  const { rows } = await h.db.pool.query<{ n: number }>(
    `select count(*)::int as n from llm_ledger where ${sql}`,
    params,
  );
  return rows[0]?.n ?? 0;
}

const instant = fc
  .oneof(
    fc.integer({ min: -DAY, max: 5 * DAY }),
    fc.integer({ min: -1, max: 5 }).map((d) => d * DAY),
  )
  .map((ms) => new Date(window.from.getTime() + ms));

it('total from the day rollup equals the row-by-row count, for any window and rollup-able filter', async () => {
  await fc.assert(
    fc.asyncProperty(
      instant,
      instant,
      fc.record(
        {
          models: fc.subarray(['gpt-4o-2024-08-06', 'unknown', 'claude-3-5-sonnet-20241022'], {
            minLength: 1,
          }),
          providers: fc.subarray(['openai', 'anthropic', 'unknown'], { minLength: 1 }),
          status: fc.constantFrom('success' as const, 'failed' as const),
          environments: fc.subarray(['production', 'development', 'staging'], { minLength: 1 }),
          sources: fc.subarray(['runtime', 'knowledge', 'guardrails'], { minLength: 1 }),
          sourceSubtypes: fc.subarray(['response_generation', 'guardrails'], { minLength: 1 }),
        },
        { requiredKeys: [] },
      ),
      async (a, b, extra) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const filter: LedgerFilter = {
          projectId,
          from,
          to,
          sort: { field: 'timestamp', direction: 'desc' },
          dataMode: 'summary',
          limit: 1,
          offset: 0,
          ...extra,
        };
        expect((await listLedger(h.db.pool, filter)).total).toBe(await countedRowByRow(filter));
      },
    ),
    { numRuns: 150 },
  );
});
