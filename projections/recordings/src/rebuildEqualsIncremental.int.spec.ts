import { randomUUID } from 'node:crypto';
import { recordingStream, sessionStream, toAppend } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import { comparePositions } from '@parley/eventstore';
import { rebuildProjection } from '@parley/projection-runner';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordingsProjection } from './recordingsProjection.js';
import { createHarness, type Harness } from './spec/harness.js';
import { type EventInput, recordingEventsArbitrary, toAppends } from './spec/recordingEvents.js';

// Small runner batches, so that rows go through PostgreSQL (jsonb facts included) between events.
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ batchSize: 3 });
});
afterAll(() => h.close());

async function tableRows(projectId: string) {
  const recordings = await h.db.pool.query(
    'select * from recordings where project_id = $1 order by recording_id',
    [projectId],
  );
  const sessions = await h.db.pool.query(
    'select * from recording_sessions where project_id = $1 order by session_id',
    [projectId],
  );
  return { recordings: recordings.rows, recording_sessions: sessions.rows };
}

const withRecording = (events: readonly EventInput[], recordingId: string): EventInput[] =>
  events.map((e) => ({ ...e, data: { ...e.data, recordingId } }) as EventInput);

it('any order of a recording’s events gives the same row; rebuild equals incremental equals in-memory', async () => {
  const scope = { projectId: 'p', sessionId: 'sess', recordingId: 'r' };
  await fc.assert(
    fc.asyncProperty(
      recordingEventsArbitrary(scope).chain((events) =>
        fc.tuple(
          fc.constant(events),
          fc.shuffledSubarray(events, { minLength: events.length }),
          fc.nat({ max: 4 }),
        ),
      ),
      async ([events, shuffled, pieces]) => {
        const projectId = `proj_${randomUUID()}`;
        const at = <T extends EventInput>(list: readonly T[]) =>
          list.map((e) => ({ ...e, data: { ...e.data, projectId } }) as EventInput);
        const session = { projectId, sessionId: 'sess' };
        await h.append(sessionStream('sess'), [
          toAppend('SessionStarted', { ...eventExamples.SessionStarted, ...session, recordingEnabled: true }),
        ]);
        // The same events twice: as generated to recording a, shuffled to recording b, each in
        // several appends; noise from another type and an unknown type in between.
        const a = toAppends(withRecording(at(events), 'a'));
        const b = toAppends(withRecording(at(shuffled), 'b'));
        const step = Math.max(1, Math.ceil(a.length / (pieces + 1)));
        for (let i = 0; i < a.length; i += step) {
          await h.append(recordingStream('a'), a.slice(i, i + step));
          await h.append(`unknown-${randomUUID()}`, [
            { eventId: randomUUID(), type: 'SomethingNew', data: { projectId } },
          ]);
          await h.append(recordingStream('b'), b.slice(i, i + step));
        }
        await h.append(sessionStream('sess'), [
          toAppend('SessionEnded', { ...eventExamples.SessionEnded, ...session }),
        ]);
        await h.caughtUp();
        const incremental = await tableRows(projectId);
        const [rowA, rowB] = incremental.recordings;
        expect(rowB).toEqual({ ...rowA, recording_id: 'b' });
        expect(incremental.recording_sessions).toEqual([
          { project_id: projectId, session_id: 'sess', started: true, ended: true, recording_enabled: true },
        ]);

        const readBack = [];
        for (const stream of [recordingStream('a'), recordingStream('b')]) {
          for await (const e of h.store.readStream(stream)) {
            if ((e.data as { projectId?: string }).projectId === projectId) readBack.push(e);
          }
        }
        readBack.sort((x, y) => comparePositions(x.position, y.position));
        const inMemory = projectInMemory(recordingsProjection, readBack);
        expect(incremental.recordings).toEqual(memoryRows(inMemory, 'recordings'));

        await rebuildProjection({
          pool: h.db.pool,
          store: h.store,
          projection: recordingsProjection,
          batchSize: 7,
        });
        expect(await tableRows(projectId)).toEqual(incremental);
      },
    ),
    { numRuns: 12 },
  );
});
