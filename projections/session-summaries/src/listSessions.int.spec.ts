import { randomUUID } from 'node:crypto';
import { sessionStream } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionListFilter } from './filter.js';
import { listSessions, MAX_BODY_BYTES } from './listSessions.js';
import { createHarness, type Harness } from './spec/harness.js';
import { sessionEvents } from './spec/sessionEvents.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** Appends a session's events to its stream, one append per event, in the order given. */
async function appendSession(sessionId: string, events: EventToAppend[]) {
  for (const event of events) await h.append(sessionStream(sessionId), [event]);
}

const page = (filter: Partial<SessionListFilter> & { projectId: string }) =>
  listSessions(h.db.pool, { limit: 100, offset: 0, ...filter });
const ids = async (filter: Partial<SessionListFilter> & { projectId: string }) =>
  (await page(filter)).sessions.map((s) => s.id);

describe('listSessions', () => {
  it('gives every field of spec 000 §2.2 exactly, whatever order the events were appended in', async () => {
    const projectId = randomUUID();
    const sessionId = randomUUID();
    const s = sessionEvents(projectId, sessionId);
    // Appended out of order: the end and the reply before the start.
    await appendSession(sessionId, [
      s.ended('2025-03-01T10:05:00.000Z', { status: 'completed', containmentType: 'contained_resolved' }),
      s.reply('2025-03-01T10:00:07.000Z'),
      s.llmCall(
        '2025-03-01T10:01:30.000Z',
        0.2,
        { inputTokens: 50, completionTokens: 10, reasoningTokens: 5 },
        4_000,
      ),
      s.started('2025-03-01T10:00:00.000Z', {
        channel: 'voice_pipeline',
        environment: 'dev',
        channelUserId: 'u-42',
        callerNumberKey: '+14155550100',
        traceDimensions: { plan: 'gold', region: 'eu' },
      }),
      s.message('2025-03-01T10:00:05.000Z'),
      s.trace('llm_call', '2025-03-01T10:00:06.000Z', 900),
      s.trace('decision', '2025-03-01T10:00:06.500Z'),
      s.trace('tool_call', '2025-03-01T10:01:01.000Z', 2_000),
      s.trace('error', '2025-03-01T10:01:02.000Z'),
      s.trace('state_change', '2025-03-01T10:01:03.000Z'),
      s.llmCall('2025-03-01T10:00:06.000Z', 0.1, {
        inputTokens: 100,
        cachedTokens: 20,
        completionTokens: 30,
      }),
    ]);
    await h.caughtUp();
    expect(await page({ projectId, sessionIds: [sessionId] })).toEqual({
      total: 1,
      hasMore: false,
      sessions: [
        {
          id: sessionId,
          channel: 'voice_pipeline',
          environment: 'dev',
          status: 'completed',
          containmentType: 'contained_resolved',
          createdAt: '2025-03-01T10:00:00.000Z',
          lastActivityAt: '2025-03-01T10:01:34.000Z',
          endedAt: '2025-03-01T10:05:00.000Z',
          messageCount: { user: 1, agent: 1, total: 2 },
          traceEventCount: { llm_call: 1, decision: 1, tool_call: 1, error: 1, total: 5 },
          tokenCount: {
            inputTokens: 150,
            cachedTokens: 20,
            completionTokens: 40,
            reasoningTokens: 5,
            outputTokens: 45,
            totalTokens: 195,
          },
          traceDimensions: { plan: 'gold', region: 'eu' },
          estimatedCost: 0.3,
          durationMs: 300_000,
          idleDurationMs: 206_000,
          isTest: null,
        },
      ],
    });
  });

  it('does not list a session whose start has not been read, even by id', async () => {
    const projectId = randomUUID();
    const sessionId = randomUUID();
    const s = sessionEvents(projectId, sessionId);
    await appendSession(sessionId, [s.message('2025-03-01T10:00:05.000Z')]);
    await h.caughtUp();
    expect(await page({ projectId, sessionIds: [sessionId] })).toEqual({
      total: 0,
      sessions: [],
      hasMore: false,
    });
  });

  describe('filters', () => {
    const projectId = randomUUID();
    const otherProject = randomUUID();
    const id = { a: 'a', b: 'b', c: 'c', d: 'd', e: 'e', early: 'early' } as const;
    const window = { from: new Date('2025-04-01T10:00:00Z'), to: new Date('2025-04-01T10:05:00Z') };

    beforeAll(async () => {
      const session = (sessionId: string, project = projectId) => sessionEvents(project, sessionId);
      const a = session(id.a);
      await appendSession(`${projectId}-a`, [
        a.started('2025-04-01T10:00:00Z', {
          channel: 'web_chat',
          environment: 'production',
          channelUserId: 'u1',
          callerNumberKey: '+14155550100',
          traceDimensions: { plan: 'gold', region: 'eu' },
          isTest: false,
        }),
        a.ended('2025-04-01T10:09:00Z', { status: 'completed', containmentType: 'contained_resolved' }),
      ]);
      const b = session(id.b);
      await appendSession(`${projectId}-b`, [
        b.started('2025-04-01T10:01:00Z', {
          channel: 'voice_pipeline',
          environment: 'dev',
          channelUserId: 'u2',
          callerNumberKey: '+442071838750',
          traceDimensions: { plan: 'gold' },
        }),
      ]);
      const c = session(id.c);
      await appendSession(`${projectId}-c`, [
        c.started('2025-04-01T10:02:00Z', {
          channel: 'sdk_web',
          environment: 'staging',
          channelUserId: 'u1',
          callerNumberKey: 'Anonymous',
          traceDimensions: { plan: 'silver', region: 'eu' },
        }),
        c.ended('2025-04-01T10:03:00Z', { status: 'escalated', containmentType: 'escalated' }),
      ]);
      const d = session(id.d);
      await appendSession(`${projectId}-d`, [
        d.started('2025-04-01T10:03:00Z', {
          channel: 'web_debug',
          environment: 'dev',
          callerNumberKey: '+14155550100',
          isTest: true,
        }),
      ]);
      const e = session(id.e);
      await appendSession(`${projectId}-e`, [
        e.started('2025-04-01T10:04:59.999Z', { channel: 'api', environment: 'working-copy' }),
        e.ended('2025-04-01T10:06:00Z', { status: 'abandoned' }),
      ]);
      const early = session(id.early);
      await appendSession(`${projectId}-early`, [
        early.started('2025-04-01T09:59:59.999Z', { channel: 'web_chat', traceDimensions: { plan: 'gold' } }),
      ]);
      const late = session('late');
      await appendSession(`${projectId}-late`, [
        late.started('2025-04-01T10:05:00Z', { channel: 'web_chat' }),
      ]);
      const other = session(id.a, otherProject);
      await appendSession(`${otherProject}-a`, [
        other.started('2025-04-01T10:00:00Z', { traceDimensions: { plan: 'gold' } }),
      ]);
      await h.caughtUp();
    });

    const inWindow = { projectId, ...window };

    it('date range: from inclusive, to exclusive, newest first', async () => {
      expect(await ids(inWindow)).toEqual(['e', 'd', 'c', 'b', 'a']);
      expect(await ids({ ...inWindow, from: new Date('2025-04-01T10:01:00Z') })).toEqual([
        'e',
        'd',
        'c',
        'b',
      ]);
      expect(await ids({ ...inWindow, to: new Date('2025-04-01T10:02:00Z') })).toEqual(['b', 'a']);
      expect(await ids({ projectId: otherProject, ...window })).toEqual(['a']);
    });

    it('sessionIds alone, without a date range', async () => {
      expect(await ids({ projectId, sessionIds: ['early', 'a', 'missing'] })).toEqual(['a', 'early']);
      expect(await ids({ ...inWindow, sessionIds: ['early', 'a'] })).toEqual(['a']);
    });

    it('each filter, values ORed', async () => {
      expect(await ids({ ...inWindow, containmentTypes: ['escalated', 'abandoned'] })).toEqual(['e', 'c']);
      expect(await ids({ ...inWindow, containmentTypes: ['contained'] })).toEqual(['d', 'b']); // active
      expect(await ids({ ...inWindow, environments: ['dev', 'development'] })).toEqual(['d', 'b']);
      expect(await ids({ ...inWindow, channelUserIds: ['u1'] })).toEqual(['c', 'a']);
      expect(await ids({ ...inWindow, channels: ['web_chat', 'sdk_web', 'web'] })).toEqual(['c', 'a']);
      expect(await ids({ ...inWindow, status: 'active' })).toEqual(['d', 'b']);
      expect(await ids({ ...inWindow, status: 'abandoned' })).toEqual(['e']);
      expect(await ids({ ...inWindow, status: 'idle' })).toEqual([]);
    });

    it('callerNumber keys match exactly, never test or Studio debug sessions', async () => {
      expect(await ids({ ...inWindow, callerNumberKeys: ['+14155550100'] })).toEqual(['a']);
      expect(await ids({ ...inWindow, callerNumberKeys: ['Anonymous', '+442071838750'] })).toEqual([
        'c',
        'b',
      ]);
      expect(await ids({ ...inWindow, callerNumberKeys: ['anonymous'] })).toEqual([]);
    });

    it('traceDimensions: every pair must match exactly', async () => {
      expect(await ids({ ...inWindow, traceDimensions: { plan: 'gold' } })).toEqual(['b', 'a']);
      expect(await ids({ ...inWindow, traceDimensions: { region: 'eu' } })).toEqual(['c', 'a']);
      expect(await ids({ ...inWindow, traceDimensions: { plan: 'gold', region: 'eu' } })).toEqual(['a']);
      expect(await ids({ ...inWindow, traceDimensions: { plan: 'Gold' } })).toEqual([]);
      expect(await ids({ ...inWindow, traceDimensions: { plan: 'gold', region: 'us' } })).toEqual([]);
    });

    it('filters AND together', async () => {
      expect(
        await ids({
          ...inWindow,
          environments: ['dev', 'production'],
          traceDimensions: { plan: 'gold' },
          status: 'active',
        }),
      ).toEqual(['b']);
      expect(
        await ids({
          ...inWindow,
          channelUserIds: ['u1'],
          containmentTypes: ['escalated'],
          channels: ['sdk_web'],
        }),
      ).toEqual(['c']);
      expect(await ids({ ...inWindow, channelUserIds: ['u1'], status: 'active' })).toEqual([]);
    });

    it('pages with limit and offset; total counts every match', async () => {
      const first = await page({ ...inWindow, limit: 2 });
      expect(first.sessions.map((s) => s.id)).toEqual(['e', 'd']);
      expect(first).toMatchObject({ total: 5, hasMore: true });
      const second = await page({ ...inWindow, limit: 2, offset: 2 });
      expect(second.sessions.map((s) => s.id)).toEqual(['c', 'b']);
      expect(second).toMatchObject({ total: 5, hasMore: true });
      const last = await page({ ...inWindow, limit: 2, offset: 4 });
      expect(last.sessions.map((s) => s.id)).toEqual(['a']);
      expect(last).toMatchObject({ total: 5, hasMore: false });
      expect(await page({ ...inWindow, offset: 50 })).toEqual({ total: 5, sessions: [], hasMore: false });
    });

    it('a row larger than the byte cap goes out alone, so paging still moves on', async () => {
      const tiny = { maxSessionsBytes: 10 };
      const first = await listSessions(h.db.pool, { ...inWindow, limit: 5, offset: 0 }, tiny);
      expect(first).toMatchObject({ total: 5, hasMore: true });
      expect(first.sessions.map((s) => s.id)).toEqual(['e']);
      const last = await listSessions(h.db.pool, { ...inWindow, limit: 5, offset: 4 }, tiny);
      expect(last).toMatchObject({ total: 5, hasMore: false });
      expect(last.sessions.map((s) => s.id)).toEqual(['a']);
    });
  });

  it('keeps a page within 1 MiB: a short page, hasMore true, the right total, and paging moves on', async () => {
    const projectId = randomUUID();
    const count = 30;
    const bigDimensions = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`dimension_${i}`, 'x'.repeat(10_000)]),
    );
    for (let i = 0; i < count; i += 1) {
      const sessionId = `big-${String(i).padStart(2, '0')}`;
      const s = sessionEvents(projectId, sessionId);
      await appendSession(`${projectId}-${sessionId}`, [
        s.started(new Date(Date.UTC(2025, 4, 1, 10, i)).toISOString(), { traceDimensions: bigDimensions }),
      ]);
    }
    await h.caughtUp();
    const filter = {
      projectId,
      from: new Date('2025-05-01T00:00:00Z'),
      to: new Date('2025-05-02T00:00:00Z'),
    };

    const first = await page({ ...filter, limit: 100 });
    expect(first.total).toBe(count);
    expect(first.hasMore).toBe(true);
    expect(first.sessions.length).toBeGreaterThan(0);
    expect(first.sessions.length).toBeLessThan(count);
    const body = JSON.stringify({
      success: true,
      total: first.total,
      offset: 0,
      limit: 100,
      hasMore: true,
      sessions: first.sessions,
    });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    // One more row would not have fitted.
    expect(Buffer.byteLength(body) + 60_000).toBeGreaterThan(MAX_BODY_BYTES);

    const seen = [...first.sessions.map((s) => s.id)];
    let offset = seen.length;
    for (let pages = 0; pages < 10 && offset < count; pages += 1) {
      const next = await page({ ...filter, limit: 100, offset });
      expect(next.total).toBe(count);
      seen.push(...next.sessions.map((s) => s.id));
      offset += next.sessions.length;
      expect(next.hasMore).toBe(offset < count);
    }
    const expected = Array.from({ length: count }, (_, i) => `big-${String(count - 1 - i).padStart(2, '0')}`);
    expect(seen).toEqual(expected);
  });
});
