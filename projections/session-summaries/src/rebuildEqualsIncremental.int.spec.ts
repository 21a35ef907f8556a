import { randomUUID } from 'node:crypto';
import { sessionStream, toAppend } from '@parley/events';
import { eventDataArbitraries } from '@parley/events/testing';
import type { RecordedEvent } from '@parley/eventstore';
import { rebuildProjection } from '@parley/projection-runner';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sessionSummariesProjection } from './sessionSummariesProjection.js';
import { createHarness, type Harness } from './spec/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const types = [
  'SessionStarted',
  'SessionEnded',
  'SessionIdled',
  'SessionArchived',
  'MessageReceived',
  'AgentReplied',
  'TraceEventRecorded',
  'LlmCallRecorded',
  'VoiceCallStatusChanged',
] as const;

/** An event of one of three sessions, any valid data; or an event of a type this projection ignores. */
const anEvent = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(fc.constantFrom(...types), fc.constantFrom('s1', 's2', 's3')) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constant('SessionRenamed' as const), fc.constantFrom('s1', 's2', 's3')),
  },
);
interface Spec {
  type: (typeof types)[number] | 'SessionRenamed';
  session: string;
  data: Record<string, unknown>;
}
const spec: fc.Arbitrary<Spec> = anEvent.chain((picked): fc.Arbitrary<Spec> => {
  const [type, session] = picked;
  return type === 'SessionRenamed'
    ? fc.constant({ type, session, data: {} as Record<string, unknown> })
    : (eventDataArbitraries[type] as fc.Arbitrary<Record<string, unknown>>).map((data) => ({
        type,
        session,
        data,
      }));
});

async function wholeLog(): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (;;) {
    const last = out.at(-1);
    const batch = await h.store.readAll({ maxCount: 5_000, ...(last ? { after: last.position } : {}) });
    if (batch.length === 0) return out;
    out.push(...batch);
  }
}

/** Rows of a project from both views, comparable with the in-memory fold's. */
async function viewRows(projectId: string) {
  const summaries = await h.db.pool.query(
    'select * from session_summaries where project_id = $1 order by id',
    [projectId],
  );
  const dimensions = await h.db.pool.query(
    'select * from session_dimensions where project_id = $1 order by session_id, name_key',
    [projectId],
  );
  return { s: summaries.rows, d: dimensions.rows };
}

async function expectedRows(projectId: string) {
  const state = projectInMemory(sessionSummariesProjection, await wholeLog());
  const mine = (table: string, order: (r: Record<string, unknown>) => string) =>
    memoryRows(state, table)
      .filter((r) => r.project_id === projectId)
      .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return {
    s: mine('session_summaries', (r) => String(r.id)),
    d: mine('session_dimensions', (r) => `${String(r.session_id)}\u0000${String(r.name_key)}`),
  };
}

it('incremental projection equals the in-memory fold of the log, and a rebuild equals both', async () => {
  let summarised = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(spec, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 }),
      async (appends) => {
        const projectId = randomUUID();
        for (const specs of appends) {
          for (const { type, session, data } of specs) {
            const scoped = { ...data, projectId, sessionId: session };
            const event =
              type === 'SessionRenamed'
                ? { eventId: randomUUID(), type, data: scoped, metadata: {} }
                : toAppend(type, scoped as never);
            await h.append(sessionStream(`${projectId}-${session}`), [event]);
          }
        }
        await h.caughtUp();
        const incremental = await viewRows(projectId);
        expect(incremental).toEqual(await expectedRows(projectId));
        summarised += incremental.s.length;
        await rebuildProjection({ pool: h.db.pool, store: h.store, projection: sessionSummariesProjection });
        expect(await viewRows(projectId)).toEqual(incremental);
      },
    ),
    { numRuns: 8 },
  );
  expect(summarised).toBeGreaterThan(0);
});
