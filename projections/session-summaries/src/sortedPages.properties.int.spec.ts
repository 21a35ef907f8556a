import type { SessionSortField } from '@parley/analytics';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { ensureProjection, physicalTable, projectionRunnerMigrations } from '@parley/projection-runner';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSessions } from './listSessions.js';
import { sessionSummariesProjection } from './sessionSummariesProjection.js';

/**
 * Sorted session pages (their own indexes, the bounded lastActivityAt walk) against the plain sort
 * of the same rows in memory: any rows, filters, sort, limit and offset. Rows are written straight
 * into the live generation's table, with lastActivityAt anywhere around createdAt (null, before it,
 * long after it), so the walk's bounds and the rows outside them are both exercised; a stale read
 * of the bounds (narrower than the rows) must give the same page. (Totals come from the day rollups,
 * which this leaves empty: sessionTotal.int.spec.ts checks them.)
 */
const DAY = 86_400_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const FIELDS: SessionSortField[] = [
  'createdAt',
  'lastActivityAt',
  'estimatedCost',
  'totalTokens',
  'messageCount',
];

interface Row {
  id: string;
  project: string;
  environment: string;
  createdAt: number;
  lastActivityAt: number | null;
  cost: number;
  tokens: number;
  user: number;
  agent: number;
}

const aRow = (i: number) =>
  fc
    .record({
      project: fc.constantFrom('p1', 'p2'),
      environment: fc.constantFrom('production', 'staging'),
      createdAt: fc.integer({ min: 0, max: 10 * DAY }),
      span: fc.option(fc.oneof(fc.integer({ min: -DAY, max: DAY }), fc.integer({ min: 0, max: 9 * DAY })), {
        nil: null,
      }),
      cost: fc.integer({ min: 0, max: 30 }),
      tokens: fc.integer({ min: 0, max: 30 }),
      user: fc.integer({ min: 0, max: 5 }),
      agent: fc.integer({ min: 0, max: 5 }),
    })
    .map(
      (r): Row => ({
        id: `s-${String(i).padStart(4, '0')}`,
        project: r.project,
        environment: r.environment,
        createdAt: T0 + r.createdAt,
        lastActivityAt: r.span === null ? null : T0 + r.createdAt + r.span,
        cost: r.cost / 100,
        tokens: r.tokens,
        user: r.user,
        agent: r.agent,
      }),
    );

const rowsArb = fc
  .integer({ min: 0, max: 40 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => aRow(i))));

const key = (row: Row, field: SessionSortField): number => {
  switch (field) {
    case 'createdAt':
      return row.createdAt;
    case 'lastActivityAt':
      return row.lastActivityAt ?? row.createdAt;
    case 'estimatedCost':
      return row.cost;
    case 'totalTokens':
      return row.tokens;
    case 'messageCount':
      return row.user + row.agent;
    default: {
      const exhaustive: never = field;
      throw new Error(`unknown sort ${String(exhaustive)}`);
    }
  }
};

let db: TestDatabase;
let insertSql: string;
let columnNames: string[];
beforeAll(async () => {
  db = await createTestDatabase([projectionRunnerMigrations]);
  const { generation } = await ensureProjection(db.pool, sessionSummariesProjection);
  const table = sessionSummariesProjection.compiled.find((t) => t.logical === 'session_summaries')!;
  columnNames = table.columns.map((c) => c.name);
  insertSql = `insert into ${physicalTable('session_summaries', generation)} (${columnNames.join(', ')})
    select * from json_populate_recordset(null::${physicalTable('session_summaries', generation)}, $1::json)`;
});
afterAll(() => db?.close());

async function load(rows: readonly Row[]): Promise<void> {
  await db.pool.query('delete from session_summaries');
  const records = rows.map((r) => ({
    project_id: r.project,
    id: r.id,
    started_event_id: `start-${r.id}`,
    channel: 'web_chat',
    environment: r.environment,
    trace_dimensions: {},
    created_at: new Date(r.createdAt).toISOString(),
    last_activity_at: r.lastActivityAt === null ? null : new Date(r.lastActivityAt).toISOString(),
    status: 'completed',
    containment_type: 'contained_resolved',
    recorded_containment_type: null,
    duration_ms: 0,
    idle_duration_ms: 0,
    user_messages: r.user,
    agent_messages: r.agent,
    trace_llm_call: 0,
    trace_decision: 0,
    trace_tool_call: 0,
    trace_error: 0,
    trace_total: 0,
    llm_calls: 0,
    input_tokens: 0,
    cached_tokens: 0,
    completion_tokens: 0,
    reasoning_tokens: 0,
    output_tokens: 0,
    total_tokens: r.tokens,
    estimated_cost: r.cost.toFixed(2),
    summary_written_at: new Date(r.createdAt).toISOString(),
  }));
  await db.pool.query(insertSql, [JSON.stringify(records)]);
}

const query = fc.record({
  project: fc.constantFrom('p1', 'p2'),
  from: fc.integer({ min: -DAY, max: 10 * DAY }),
  days: fc.integer({ min: 0, max: 11 }),
  environment: fc.option(fc.constantFrom('production', 'staging'), { nil: undefined }),
  field: fc.constantFrom(...FIELDS),
  direction: fc.constantFrom('asc' as const, 'desc' as const),
  limit: fc.integer({ min: 1, max: 12 }),
  offset: fc.integer({ min: 0, max: 15 }),
  staleBounds: fc.boolean(),
});

describe('sorted session pages', () => {
  it('are the plain sort of the matching rows, page by page (bounds read before or stale)', async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb, fc.array(query, { minLength: 1, maxLength: 6 }), async (rows, queries) => {
        await load(rows);
        for (const q of queries) {
          const from = T0 + q.from;
          const to = from + q.days * DAY + 3_600_000;
          const matches = rows.filter(
            (r) =>
              r.project === q.project &&
              r.createdAt >= from &&
              r.createdAt < to &&
              (q.environment === undefined || r.environment === q.environment),
          );
          const sign = q.direction === 'asc' ? 1 : -1;
          const expected = [...matches]
            .sort((a, b) => sign * (key(a, q.field) - key(b, q.field) || (a.id < b.id ? -1 : 1)))
            .slice(q.offset, q.offset + q.limit)
            .map((r) => r.id);
          const page = await listSessions(
            db.pool,
            {
              projectId: q.project,
              from: new Date(from),
              to: new Date(to),
              limit: q.limit,
              offset: q.offset,
              sort: { field: q.field, direction: q.direction },
              ...(q.environment === undefined ? {} : { environments: [q.environment] }),
            },
            // Bounds as a read before every row's span changed: none of the rows inside them.
            q.staleBounds ? { activityBounds: { loSpan: '0', hiSpan: '0' } } : {},
          );
          expect(page.sessions.map((s) => s.id)).toEqual(expected);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
