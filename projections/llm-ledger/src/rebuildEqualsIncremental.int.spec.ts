import { randomUUID } from 'node:crypto';
import { toAppend } from '@parley/events';
import { eventDataArbitraries, eventExamples } from '@parley/events/testing';
import { rebuildProjection } from '@parley/projection-runner';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { llmLedgerProjection } from './llmLedgerProjection.js';
import { type CallInput, createHarness, type Harness } from './spec/harness.js';

// Small runner batches, so that the live projection folds the log in many pieces.
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ batchSize: 3 });
});
afterAll(() => h.close());

const call = fc
  .tuple(
    eventDataArbitraries.LlmCallRecorded,
    fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
    fc.constantFrom('c1', 'c2', 'c3'),
  )
  .map(([data, sessionId, callId]): Omit<CallInput, 'projectId'> => {
    const { sessionId: _s, projectId: _p, ...rest } = data;
    return { ...rest, callId, ...(sessionId === undefined ? {} : { sessionId }) };
  });

async function tableRows(projectId: string) {
  const ledger = await h.db.pool.query('select * from llm_ledger where project_id = $1 order by id', [
    projectId,
  ]);
  const payloads = await h.db.pool.query(
    'select * from llm_ledger_payloads where project_id = $1 order by id',
    [projectId],
  );
  return { llm_ledger: ledger.rows, llm_ledger_payloads: payloads.rows };
}

it('rebuild equals incremental projection, and both equal the in-memory fold (random calls, appends)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(call, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
      async (appends) => {
        const projectId = `proj_${randomUUID()}`;
        const appended: ReturnType<typeof toAppend>[] = [];
        for (const group of appends) {
          const events = group.map((c) => toAppend('LlmCallRecorded', { ...c, projectId }));
          // Noise between the calls: another type in the same log, and a type no build knows.
          await h.store.append(`session-${randomUUID()}`, [
            toAppend('SessionStarted', { ...eventExamples.SessionStarted, projectId }),
          ]);
          await h.store.append(`unknown-${randomUUID()}`, [
            { eventId: randomUUID(), type: 'SomethingNew', data: { projectId } },
          ]);
          h.appended((await h.store.append(`llm-${projectId}`, events)).position);
          appended.push(...events);
        }
        await h.caughtUp();
        const incremental = await tableRows(projectId);

        const readBack = [];
        for await (const e of h.store.readStream(`llm-${projectId}`)) readBack.push(e);
        const inMemory = projectInMemory(llmLedgerProjection, readBack);
        expect(incremental.llm_ledger).toEqual(memoryRows(inMemory, 'llm_ledger'));
        expect(incremental.llm_ledger_payloads).toEqual(memoryRows(inMemory, 'llm_ledger_payloads'));

        await rebuildProjection({
          pool: h.db.pool,
          store: h.store,
          projection: llmLedgerProjection,
          batchSize: 7,
        });
        expect(await tableRows(projectId)).toEqual(incremental);
        expect(appended.length).toBeGreaterThan(0);
      },
    ),
    { numRuns: 8 },
  );
});
