import { sessionStream } from '@parley/events';
import { listLedger, llmLedgerProjection } from '@parley/projection-llm-ledger';
import { createProjectionRunner, type ProjectionRunner } from '@parley/projection-runner';
import { listSessions, sessionSummariesProjection } from '@parley/projection-session-summaries';
import { listGenerations, listTraces, tracesProjection } from '@parley/projection-traces';
import { createSseParser } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatWorld, createChatWorld, listeningChatApp } from '../../testing/chatFixture.js';

/**
 * The "done when": a conversation over chat/stream from a real SSE client produces a
 * session, messages, traces, ledger rows and a summary that all agree, with the projections run by
 * the real projection runner.
 */
let world: ChatWorld;
let app: FastifyInstance;
let base: string;
let runner: ProjectionRunner;

beforeAll(async () => {
  world = await createChatWorld();
  ({ app, url: base } = await listeningChatApp(world));
  runner = createProjectionRunner({
    pool: world.db.pool,
    store: world.store,
    projections: [sessionSummariesProjection, llmLedgerProjection, tracesProjection],
    pollIntervalMs: 20,
  });
  await runner.start();
});
afterAll(async () => {
  await runner.stop();
  await app.close();
  await world.close();
});

async function streamTurn(key: string, body: object): Promise<Record<string, Record<string, unknown>>> {
  const res = await fetch(`${base}/api/v1/chat/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const parser = createSseParser();
  const last: Record<string, Record<string, unknown>> = {};
  for await (const chunk of res.body!) {
    for (const e of parser.feed(chunk)) last[e.event] = JSON.parse(e.data);
  }
  return last;
}

async function eventually<T>(read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the read models did not catch up');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a conversation over chat/stream', () => {
  it('agrees across the log, the session summary, the LLM ledger and the traces', async () => {
    const { projectId, key } = await world.newProject();
    const turns = [await streamTurn(key, { projectId, message: 'Hello, I need help with an order.' })];
    const sessionId = turns[0]!.complete!.sessionId as string;
    turns.push(
      await streamTurn(key, { sessionId, message: 'What is the weather there? /tool weather city=Paris' }),
    );
    turns.push(
      await streamTurn(key, { sessionId, message: 'Thanks, that solved it. /end contained_resolved' }),
    );
    const completes = turns.map((t) => t.complete!);
    expect(completes.map((c) => c.sessionId)).toEqual([sessionId, sessionId, sessionId]);
    expect(completes.at(-1)!.ended).toMatchObject({ containmentType: 'contained_resolved' });

    // The log.
    const events: Array<{ type: string; data: Record<string, unknown> }> = [];
    for await (const e of world.store.readStream(sessionStream(sessionId))) events.push(e);
    const ofType = (type: string) => events.filter((e) => e.type === type);
    expect(ofType('SessionStarted')).toHaveLength(1);
    expect(ofType('MessageReceived')).toHaveLength(3);
    expect(ofType('AgentReplied')).toHaveLength(3);
    expect(ofType('SessionEnded')).toHaveLength(1);
    const calls = ofType('LlmCallRecorded');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    const callTokens = calls.reduce(
      (sum, c) => sum + ((c.data.usage as { totalTokens: number }).totalTokens ?? 0),
      0,
    );
    // What the client was told is what was recorded.
    expect(completes.reduce((sum, c) => sum + (c.totalTokens as number), 0)).toBe(callTokens);
    const traces = ofType('TraceEventRecorded');
    const traceTypes = new Set(traces.map((t) => t.data.eventType));
    for (const type of ['response', 'llm_call', 'tool_call', 'tool_result'])
      expect(traceTypes).toContain(type);

    // The session summary.
    const summary = await eventually(async () => {
      const page = await listSessions(world.db.pool, {
        projectId,
        sessionIds: [sessionId],
        limit: 10,
        offset: 0,
      });
      const row = page.sessions[0];
      return row && row.messageCount.total === 6 && row.endedAt !== null ? row : undefined;
    });
    expect(summary).toMatchObject({
      id: sessionId,
      channel: 'api',
      containmentType: 'contained_resolved',
      messageCount: { user: 3, agent: 3, total: 6 },
    });
    expect(summary.tokenCount.totalTokens).toBe(callTokens);
    expect(summary.traceEventCount.llm_call).toBe(
      traces.filter((t) => t.data.eventType === 'llm_call').length,
    );
    expect(summary.traceEventCount.tool_call).toBe(
      traces.filter((t) => t.data.eventType === 'tool_call').length,
    );

    // The LLM ledger.
    const ledger = await eventually(async () => {
      const page = await listLedger(world.db.pool, {
        projectId,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 3_600_000),
        sessionIds: [sessionId],
        sort: { field: 'timestamp', direction: 'asc' },
        dataMode: 'summary',
        limit: 100,
        offset: 0,
      });
      return page.generations.length === calls.length ? page.generations : undefined;
    });
    expect(ledger.reduce((sum, g) => sum + g.totalTokens, 0)).toBe(callTokens);
    expect(new Set(ledger.map((g) => g.provider))).toEqual(new Set(['scripted']));

    // The traces (spec 001 §4.8): every trace event of the log, with its span tree, and each call.
    const traced = await eventually(async () => {
      const page = await listTraces(world.db.pool, { projectId, sessionId, limit: 1_000, offset: 0 });
      return page && page.total === traces.length ? page : undefined;
    });
    expect(new Set(traced.traces.map((t) => t.spanId))).toEqual(
      new Set(traces.map((t) => t.data.spanId as string)),
    );
    for (const t of traced.traces) {
      const logged = traces.find((l) => l.data.spanId === t.spanId)!;
      expect(t).toMatchObject({
        eventType: logged.data.eventType,
        parentSpanId: logged.data.parentSpanId ?? null,
      });
    }
    const generations = await listGenerations(world.db.pool, {
      projectId,
      sessionIds: [sessionId],
      limit: 100,
      offset: 0,
    });
    expect(generations.total).toBe(calls.length);
    expect(generations.generations.reduce((sum, g) => sum + g.totalTokens, 0)).toBe(callTokens);
  });
});
