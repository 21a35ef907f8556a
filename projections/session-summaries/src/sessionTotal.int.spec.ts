import { randomUUID } from 'node:crypto';
import { sessionStream } from '@parley/events';
import { wholeDays } from '@parley/projection-runner';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionListFilter } from './filter.js';
import { listSessions } from './listSessions.js';
import { sessionListWhere } from './sessionListWhere.js';
import { createHarness, type Harness } from './spec/harness.js';
import { sessionEvents } from './spec/sessionEvents.js';

let h: Harness;
const projectId = randomUUID();
const DAY = 86_400_000;
const BASE = Date.UTC(2025, 4, 1);
const channels = ['web_chat', 'sms', 'voice_pipeline'] as const;
const environments = ['production', 'staging', 'dev'] as const;
const statuses = ['completed', 'escalated', 'abandoned'] as const;

/**
 * 120 sessions over 6 days at varied hours, some ended (status changes after the start: the rollup
 * moves them between groups), some started twice with other dimensions, one without a start.
 */
beforeAll(async () => {
  h = await createHarness();
  const random = fc.sample(
    fc.record({
      at: fc.integer({ min: 0, max: 6 * DAY - 1 }),
      channel: fc.constantFrom(...channels),
      environment: fc.constantFrom(...environments),
      status: fc.option(fc.constantFrom(...statuses)),
      campaign: fc.option(fc.constantFrom('spring', 'summer')),
      restart: fc.boolean(),
    }),
    { numRuns: 120, seed: 42 },
  );
  for (const r of random) {
    const sessionId = randomUUID();
    const s = sessionEvents(projectId, sessionId);
    const startedAt = new Date(BASE + r.at).toISOString();
    const events = [
      s.started(startedAt, {
        channel: r.channel,
        environment: r.environment,
        traceDimensions: r.campaign ? { campaign: r.campaign } : {},
      }),
    ];
    if (r.status) events.push(s.ended(new Date(BASE + r.at + 60_000).toISOString(), { status: r.status }));
    // A later start of the same session loses: its dimension must not count.
    if (r.restart)
      events.push(
        s.started(new Date(BASE + r.at + 1_000).toISOString(), { traceDimensions: { campaign: 'winter' } }),
      );
    for (const event of events) await h.append(sessionStream(sessionId), [event]);
  }
  const orphan = randomUUID();
  await h.append(sessionStream(orphan), [
    sessionEvents(projectId, orphan).message(new Date(BASE).toISOString()),
  ]);
  await h.caughtUp();
}, 120_000);
afterAll(() => h.close());

async function countedRowByRow(filter: SessionListFilter): Promise<number> {
  const { where, params } = sessionListWhere(filter);
  const { rows } = await h.db.pool.query<{ n: number }>(
    `select count(*)::int as n from session_summaries s where ${where}`,
    params,
  );
  return rows[0]?.n ?? 0;
}

const instant = fc.integer({ min: -DAY, max: 7 * DAY }).map((ms) => new Date(BASE + ms));
const dayAligned = fc.integer({ min: -1, max: 7 }).map((d) => new Date(BASE + d * DAY));

it('wholeDays: the UTC days entirely inside [from, to)', () => {
  const at = (iso: string) => new Date(iso);
  expect(wholeDays(at('2025-05-01T00:00:00Z'), at('2025-05-03T00:00:00Z'))).toEqual({
    first: at('2025-05-01T00:00:00Z'),
    end: at('2025-05-03T00:00:00Z'),
  });
  expect(wholeDays(at('2025-05-01T00:00:00.001Z'), at('2025-05-03T12:00:00Z'))).toEqual({
    first: at('2025-05-02T00:00:00Z'),
    end: at('2025-05-03T00:00:00Z'),
  });
  expect(wholeDays(at('2025-05-01T01:00:00Z'), at('2025-05-01T23:00:00Z'))).toBeNull();
});

it('total from the day rollups equals the row-by-row count, for any range and rollup-able filter', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(instant, dayAligned),
      fc.oneof(instant, dayAligned),
      fc.record(
        {
          channels: fc.subarray([...channels], { minLength: 1 }),
          environments: fc.subarray([...environments], { minLength: 1 }),
          status: fc.constantFrom('completed', 'escalated', 'active'),
          containmentTypes: fc.subarray(['contained', 'escalated', 'abandoned'], { minLength: 1 }),
          traceDimensions: fc.constantFrom(
            { campaign: 'spring' },
            { campaign: 'winter' },
            { campaign: 'summer' },
          ),
        },
        { requiredKeys: [] },
      ),
      async (a, b, extra) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const filter: SessionListFilter = { projectId, from, to, limit: 1, offset: 0, ...extra };
        const page = await listSessions(h.db.pool, filter);
        expect(page.total).toBe(await countedRowByRow(filter));
      },
    ),
    { numRuns: 150 },
  );
});

it('a page with a dimension filter holds the same sessions, in the same order, as the plain query', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(instant, dayAligned),
      fc.oneof(instant, dayAligned),
      fc.constantFrom({ campaign: 'spring' }, { campaign: 'summer' }, { campaign: 'winter' }),
      fc.option(fc.constantFrom('completed', 'escalated')),
      fc.integer({ min: 1, max: 15 }),
      fc.integer({ min: 0, max: 20 }),
      async (a, b, traceDimensions, status, limit, offset) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const filter: SessionListFilter = {
          projectId,
          from,
          to,
          traceDimensions,
          ...(status === null ? {} : { status }),
          limit,
          offset,
        };
        const { where, params } = sessionListWhere(filter);
        const { rows } = await h.db.pool.query<{ id: string }>(
          `select s.id from session_summaries s where ${where}
            order by s.created_at desc, s.id desc limit ${limit} offset ${offset}`,
          params,
        );
        const page = await listSessions(h.db.pool, filter);
        expect(page.sessions.map((s) => s.id)).toEqual(rows.map((r) => r.id));
      },
    ),
    { numRuns: 100 },
  );
});
