import { randomUUID } from 'node:crypto';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
  type RecordedEvent,
} from '@parley/eventstore';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from './ingest.js';

let db: TestDatabase;
let store: PostgresEventStore;
// The real normaliser lives in @parley/analytics; any function will do to prove it is applied.
const normaliseCallerNumber = (raw: string) => `key:${raw.replaceAll(' ', '')}`;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
  store = createPostgresEventStore({ pool: db.pool });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const deps = () => ({ store, pool: db.pool, normaliseCallerNumber });
const scope = () => ({
  tenantId: `ten_${randomUUID().slice(0, 8)}`,
  projectId: `proj_${randomUUID().slice(0, 8)}`,
});

async function streamEvents(stream: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of store.readStream(stream)) out.push(e);
  return out;
}

function sessionItems(sessionId: string, prefix = sessionId) {
  const at = '2026-11-21T08:00:00.000Z';
  return [
    {
      id: `${prefix}-1`,
      type: 'session.started',
      data: {
        sessionId,
        agentName: 'support',
        channel: 'voice_pipeline',
        environment: 'production',
        channelUserId: 'u-1',
        callerNumber: '+44 20 7183 8750',
        traceDimensions: { region: 'emea' },
        startedAt: at,
      },
    },
    {
      id: `${prefix}-2`,
      type: 'message.user',
      data: { sessionId, messageId: 'm1', text: 'hello', receivedAt: at },
    },
    {
      id: `${prefix}-3`,
      type: 'trace.event',
      data: { sessionId, traceId: 't1', spanId: 's1', eventType: 'llm_call', startedAt: at, llmCallId: 'c1' },
    },
    {
      id: `${prefix}-4`,
      type: 'llm.call',
      data: {
        callId: 'c1',
        sessionId,
        provider: 'openai',
        model: 'gpt-4o-mini',
        agentName: 'support',
        environment: 'production',
        channel: 'voice_pipeline',
        status: 'success',
        statusCode: 200,
        streamingUsed: false,
        cost: 0.0012,
        source: 'runtime',
        sourceSubtype: 'response_generation',
        startedAt: at,
        usage: {
          inputTokens: 100,
          cachedTokens: 0,
          completionTokens: 20,
          reasoningTokens: 0,
          outputTokens: 20,
          totalTokens: 120,
        },
        latencyMs: 300,
        timeToFirstTokenMs: 300,
      },
    },
    {
      id: `${prefix}-5`,
      type: 'message.agent',
      data: { sessionId, messageId: 'm2', inReplyTo: 'm1', agentName: 'support', text: 'hi!', repliedAt: at },
    },
    {
      id: `${prefix}-6`,
      type: 'session.ended',
      data: { sessionId, status: 'completed', containmentType: 'contained_resolved', endedAt: at },
    },
  ];
}

describe('ingest', () => {
  it('appends every kind of fact to its stream, in request order, scoped to the key', async () => {
    const s = scope();
    const sessionId = `sess_${randomUUID()}`;
    const items = sessionItems(sessionId);
    // A client cannot write into another project: projectId and tenantId come from the key.
    (items[1]!.data as Record<string, unknown>).projectId = 'proj_someone_else';
    const designTime = {
      id: 'design-1',
      type: 'llm.call',
      data: {
        ...(items[3]!.data as Record<string, unknown>),
        callId: 'c-design',
        sessionId: undefined,
        channel: undefined,
      },
    };
    const response = await ingest(deps(), s, [...items, designTime]);
    expect(response).toMatchObject({ accepted: 7, rejected: 0 });
    expect(response.results.map((r) => r.status)).toEqual(Array(7).fill('accepted'));

    const events = await streamEvents(`session-${sessionId}`);
    expect(events.map((e) => e.type)).toEqual([
      'SessionStarted',
      'MessageReceived',
      'TraceEventRecorded',
      'LlmCallRecorded',
      'AgentReplied',
      'SessionEnded',
    ]);
    for (const e of events) {
      expect(e.data.projectId).toBe(s.projectId);
      expect(e.metadata).toMatchObject({ projectId: s.projectId, tenantId: s.tenantId });
    }
    expect(events[0]!.data).toMatchObject({ tenantId: s.tenantId, callerNumberKey: 'key:+442071838750' });
    expect(events[0]!.data).not.toHaveProperty('callerNumber');
    expect(response.results[0]).toMatchObject({
      eventId: events[0]!.eventId,
      stream: `session-${sessionId}`,
    });

    const designEvents = await streamEvents(`llm-${s.projectId}`);
    expect(designEvents.map((e) => e.data.callId)).toEqual(['c-design']);
  });

  it('rejects bad items one by one, never their neighbours, and never echoes submitted values', async () => {
    const s = scope();
    const sessionId = `sess_${randomUUID()}`;
    const good = sessionItems(sessionId);
    const response = await ingest(deps(), s, [
      good[0],
      { id: 'bad-kind', type: 'session.paused', data: {} },
      {
        id: 'bad-data',
        type: 'message.user',
        data: { sessionId, messageId: 'm9', text: 'secret text', receivedAt: 'yesterday' },
      },
      'not an object',
      good[1],
    ]);
    expect(response).toMatchObject({ accepted: 2, rejected: 3 });
    expect(response.results.map((r) => [r.id, r.status])).toEqual([
      [good[0]!.id, 'accepted'],
      ['bad-kind', 'rejected'],
      ['bad-data', 'rejected'],
      [null, 'rejected'],
      [good[1]!.id, 'accepted'],
    ]);
    const badData = response.results[2]!;
    expect(badData).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    if (badData.status === 'rejected') {
      expect(badData.error.details.issues.map((i) => i.path)).toEqual(['data.receivedAt']);
    }
    expect(JSON.stringify(response)).not.toContain('secret text');
    expect((await streamEvents(`session-${sessionId}`)).length).toBe(2);
  });

  it('is idempotent by item id: a retried batch, whole or partly applied, appends each fact once', async () => {
    const s = scope();
    const sessionId = `sess_${randomUUID()}`;
    const items = sessionItems(sessionId);
    const first = await ingest(deps(), s, items.slice(0, 3));
    const again = await ingest(deps(), s, items);
    const third = await ingest(deps(), s, items);
    expect(again.accepted).toBe(6);
    expect(third.accepted).toBe(6);
    expect(again.results.slice(0, 3).map((r) => (r.status === 'accepted' ? r.eventId : null))).toEqual(
      first.results.map((r) => (r.status === 'accepted' ? r.eventId : null)),
    );
    const events = await streamEvents(`session-${sessionId}`);
    expect(events.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
  });

  it('the same item id is the same fact only within one project', async () => {
    const sessionId = `sess_${randomUUID()}`;
    const a = await ingest(deps(), scope(), sessionItems(sessionId, 'shared').slice(0, 1));
    const b = await ingest(deps(), scope(), sessionItems(`${sessionId}-b`, 'shared').slice(0, 1));
    expect(a.accepted + b.accepted).toBe(2);
  });

  it('refuses a repeated id inside one request and an id reused for another stream', async () => {
    const s = scope();
    const sessionId = `sess_${randomUUID()}`;
    const [start, message] = sessionItems(sessionId);
    const twice = await ingest(deps(), s, [start, { ...message!, id: start!.id }]);
    expect(twice.results.map((r) => r.status)).toEqual(['accepted', 'rejected']);
    expect(twice.results[1]).toMatchObject({ error: { code: 'DUPLICATE_ITEM_ID' } });

    const otherSession = sessionItems(`sess_${randomUUID()}`)[0]!;
    const reused = await ingest(deps(), s, [{ ...otherSession, id: start!.id }]);
    expect(reused.results[0]).toMatchObject({ status: 'rejected', error: { code: 'EVENT_ID_CONFLICT' } });
  });

  it('appends a large batch in one transaction', async () => {
    const s = scope();
    const items = Array.from({ length: 1_000 }, (_, i) => {
      const sessionId = `sess_${i % 50}_${s.projectId}`;
      return {
        id: `bulk-${i}`,
        type: 'message.user',
        data: { sessionId, messageId: `m${i}`, text: 'x', receivedAt: '2026-11-21T08:00:00.000Z' },
      };
    });
    const response = await ingest(deps(), s, items);
    expect(response.accepted).toBe(1_000);
    const { rows } = await db.pool.query(
      `select count(distinct transaction_id)::int as transactions, count(*)::int as events
       from events where metadata->>'projectId' = $1`,
      [s.projectId],
    );
    expect(rows[0]).toEqual({ transactions: 1, events: 1_000 });
  });

  it("never appends to another project's session or recording stream (issue 17)", async () => {
    const owner = scope();
    const intruder = scope();
    const sessionId = `sess_${randomUUID()}`;
    const recordingId = `RE${randomUUID().replaceAll('-', '')}`;
    const at = '2026-11-21T08:00:00.000Z';
    const recordingStarted = (id: string) => ({
      id,
      type: 'recording.started',
      data: { recordingId, sessionId, callId: 'CA1', startedAt: at },
    });
    expect(
      (await ingest(deps(), owner, [...sessionItems(sessionId), recordingStarted('rec-1')])).rejected,
    ).toBe(0);
    const before = (await streamEvents(`session-${sessionId}`)).length;

    const ownNew = `sess_${randomUUID()}`;
    const response = await ingest(deps(), intruder, [
      ...sessionItems(sessionId, 'intruder'),
      recordingStarted('intruder-rec'),
      ...sessionItems(ownNew).slice(0, 2),
    ]);
    // Each item naming the owner's session or recording is refused on its own; the intruder's own
    // new session is appended.
    expect(response.results.map((r) => r.status)).toEqual([
      ...Array(7).fill('rejected'),
      'accepted',
      'accepted',
    ]);
    for (const result of response.results.slice(0, 7)) {
      expect(result).toMatchObject({ status: 'rejected', error: { code: 'ID_IN_USE' } });
      expect(JSON.stringify(result)).not.toContain(owner.projectId);
    }
    expect(response.results[6]).toMatchObject({
      error: { details: { issues: [{ path: 'data.recordingId' }] } },
    });
    expect(await streamEvents(`session-${sessionId}`)).toHaveLength(before);
    expect((await streamEvents(`recording-${recordingId}`)).map((e) => e.metadata.projectId)).toEqual([
      owner.projectId,
    ]);
    expect((await streamEvents(`session-${ownNew}`)).map((e) => e.metadata.projectId)).toEqual([
      intruder.projectId,
      intruder.projectId,
    ]);
    // The owner goes on appending to its own streams.
    const more = await ingest(deps(), owner, [{ ...sessionItems(sessionId)[1]!, id: 'owner-again' }]);
    expect(more.accepted).toBe(1);
  });

  it('two projects creating the same new session at once: one owns it, the other is refused', async () => {
    for (let round = 0; round < 10; round++) {
      const sessionId = `sess_race_${randomUUID()}`;
      const [a, b] = [scope(), scope()];
      const [ra, rb] = await Promise.all([
        ingest(deps(), a, sessionItems(sessionId, `a-${round}`)),
        ingest(deps(), b, sessionItems(sessionId, `b-${round}`)),
      ]);
      const owners = new Set((await streamEvents(`session-${sessionId}`)).map((e) => e.data.projectId));
      expect(owners.size).toBe(1);
      const winner = owners.has(a.projectId) ? ra : rb;
      const loser = owners.has(a.projectId) ? rb : ra;
      expect(winner.accepted).toBe(6);
      expect(loser.results.map((r) => (r.status === 'rejected' ? r.error.code : r.status))).toEqual(
        Array(6).fill('ID_IN_USE'),
      );
    }
  });
});
