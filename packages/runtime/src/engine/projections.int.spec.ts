import { comparePositions, type Position } from '@parley/eventstore';
import { listLedger, llmLedgerProjection } from '@parley/projection-llm-ledger';
import { createProjectionRunner, type ProjectionRunner, projectionStatus } from '@parley/projection-runner';
import { listSessions, sessionSummariesProjection } from '@parley/projection-session-summaries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeHarness, type RuntimeHarness } from '../spec/harness.js';

/** Conversations run through the runtime show up in the session list and the LLM ledger, unchanged. */
let h: RuntimeHarness;
let runner: ProjectionRunner;
const projections = [sessionSummariesProjection, llmLedgerProjection];

beforeAll(async () => {
  h = await createRuntimeHarness();
  runner = createProjectionRunner({ pool: h.db.pool, store: h.store, projections, pollIntervalMs: 20 });
  await runner.start();
});
afterAll(async () => {
  await runner?.stop();
  await h?.close();
});

/** Waits until `last` is readable (other databases' transactions can hold the log back), then for no lag. */
async function caughtUp(last: Position): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const head = await h.store.head();
    if (head !== null && comparePositions(head.position, last) >= 0) {
      const statuses = await projectionStatus(h.db.pool, h.store, projections);
      if (statuses.some((s) => s.state === 'failed')) throw new Error('a projection failed');
      if (statuses.every((s) => s.generations.find((g) => g.status === 'live')?.eventsBehind === 0)) return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('projections did not catch up');
}

describe('runtime sessions in the read models', () => {
  it('lists the sessions with their state, containment, counts and LLM calls', async () => {
    const base = { projectId: h.projectId, tenantId: h.tenantId };
    const open = await h.runtime.runTurn({ ...base, message: 'Hello', channelUserId: 'user-1' });
    await h.runtime.runTurn({
      ...base,
      sessionId: open.sessionId,
      message: 'Weather? /tool weather city=Oslo',
    });
    const resolved = await h.runtime.runTurn({ ...base, message: 'Thanks /end contained_resolved' });
    const escalated = await h.runtime.runTurn({
      ...base,
      message: 'Human please /escalate',
      environment: 'production',
    });
    const ended = await h.runtime.runTurn({ ...base, message: 'bye' });
    await h.runtime.endSession(h.projectId, ended.sessionId);
    // endSession made the last append.
    const last = (await h.events(ended.sessionId)).at(-1)?.recorded.position;
    await caughtUp(last!);

    const page = await listSessions(h.db.pool, { projectId: h.projectId, limit: 100, offset: 0 });
    const byId = new Map(page.sessions.map((s) => [s.id, s]));
    expect(page.total).toBe(4);

    const openRow = byId.get(open.sessionId);
    expect(openRow).toMatchObject({
      channel: 'api',
      environment: 'dev',
      status: 'active',
      endedAt: null,
      messageCount: { user: 2, agent: 2, total: 4 },
    });
    // Two turns, the second with a tool round: three model calls, one tool call.
    expect(openRow?.traceEventCount).toMatchObject({ llm_call: 3, tool_call: 1, error: 0 });
    expect(openRow?.tokenCount.totalTokens).toBeGreaterThan(0);

    expect(byId.get(resolved.sessionId)).toMatchObject({
      status: 'completed',
      containmentType: 'contained_resolved',
    });
    expect(byId.get(escalated.sessionId)).toMatchObject({
      status: 'escalated',
      containmentType: 'escalated',
      environment: 'production',
    });
    expect(byId.get(ended.sessionId)?.status).toBe('ended');

    const ledger = await listLedger(h.db.pool, {
      projectId: h.projectId,
      from: new Date(Date.now() - 3_600_000),
      to: new Date(Date.now() + 3_600_000),
      sort: { field: 'timestamp', direction: 'asc' },
      dataMode: 'full',
      limit: 100,
      offset: 0,
    });
    // Ending and escalating are tool calls too: those turns make two model calls each.
    expect(ledger.total).toBe(8);
    expect(ledger.generations.filter((g) => g.sourceSubtype === 'tool_use_iteration')).toHaveLength(3);
    for (const g of ledger.generations) {
      expect(g).toMatchObject({
        provider: 'scripted',
        model: 'scripted-1',
        agentName: 'default', // the project has no agents: the built-in scripted agent answered
        source: 'runtime',
        status: 'success',
        cost: 0,
        environment: g.sessionId === escalated.sessionId ? 'production' : 'development',
        channel: 'api',
      });
      expect(g.payload).toBeDefined();
    }
    const sessionIds = new Set(ledger.generations.map((g) => g.sessionId));
    expect(sessionIds).toEqual(
      new Set([open.sessionId, resolved.sessionId, escalated.sessionId, ended.sessionId]),
    );
  });
});
