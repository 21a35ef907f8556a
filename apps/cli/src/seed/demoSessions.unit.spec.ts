import { storedCallerNumberKey } from '@parley/analytics';
import { CONTAINMENT_TYPES, ENVIRONMENTS, TRACE_EVENT_TYPES } from '@parley/events';
import { MAX_INGEST_ITEMS, prepareItems } from '@parley/ingest';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../progress.js';
import { ACTIVE_WITHIN_MS, type DemoItem, demoItems, SPREAD_MS } from './demoSessions.js';
import { ingestDemo } from './ingestDemo.js';
import { CALLER_NUMBERS, DEMO_CHANNELS } from './vocabulary.js';

const now = Date.parse('2026-11-21T08:00:00Z');
const all = (sessions: number, seed: number) => [...demoItems({ sessions, seed, now })].flat();
const ofType = (items: DemoItem[], type: DemoItem['type']) =>
  items.filter((i) => i.type === type).map((i) => i.data);
const distinct = (values: unknown[]) => [...new Set(values)].sort();
const scope = { tenantId: 'ten_demo', projectId: 'proj_demo' };

describe('demo sessions', () => {
  it('are the same for the same seed and differ for another', () => {
    expect(all(30, 7)).toEqual(all(30, 7));
    expect(all(30, 8)).not.toEqual(all(30, 7));
  });

  it('are all accepted by the ingest validation, with unique item ids', () => {
    for (const seed of [1, 2, 3]) {
      const items = all(120, seed);
      const prepared = prepareItems(items, scope, storedCallerNumberKey);
      expect(prepared.filter((p) => !p.ok)).toEqual([]);
      expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    }
  });

  it('show every channel, environment, containment type and end state from 50 sessions on', () => {
    for (const seed of [1, 42, 4_294_967_295]) {
      const items = all(50, seed);
      const started = ofType(items, 'session.started');
      const ended = ofType(items, 'session.ended');
      expect(started).toHaveLength(50);
      expect(distinct(started.map((s) => s.channel))).toEqual([...DEMO_CHANNELS].sort());
      expect(distinct(started.map((s) => s.environment))).toEqual([...ENVIRONMENTS].sort());
      expect(distinct(ended.map((e) => e.containmentType).filter(Boolean))).toEqual(
        [...CONTAINMENT_TYPES].sort(),
      );
      expect(distinct(ended.map((e) => e.status))).toEqual([
        'abandoned',
        'completed',
        'ended',
        'escalated',
        'failed',
      ]);
      // Some sessions are still going: started without an end.
      expect(ended.length).toBeLessThan(50);
    }
  });

  it('carry caller numbers in varied formats on voice channels only, trace dimensions and user ids', () => {
    const started = ofType(all(300, 5), 'session.started');
    const callers = started.map((s) => s.callerNumber).filter((c): c is string => typeof c === 'string');
    expect(
      started
        .filter((s) => s.callerNumber !== undefined)
        .every((s) => String(s.channel).startsWith('voice_')),
    ).toBe(true);
    for (const format of CALLER_NUMBERS) expect(callers).toContain(format);
    expect(
      started.every((s) => typeof (s.traceDimensions as Record<string, string>).region === 'string'),
    ).toBe(true);
    expect(started.filter((s) => s.channelUserId !== undefined).length).toBeGreaterThan(200);
  });

  it('trace every kind of step and record LLM calls of several providers, sources and outcomes', () => {
    const items = all(200, 11);
    const traceTypes = distinct(ofType(items, 'trace.event').map((t) => t.eventType));
    expect(traceTypes).toEqual([...TRACE_EVENT_TYPES].sort());
    const calls = ofType(items, 'llm.call');
    expect(distinct(calls.map((c) => c.provider)).length).toBeGreaterThanOrEqual(5);
    expect(distinct(calls.map((c) => c.source)).length).toBeGreaterThanOrEqual(8);
    expect(distinct(calls.map((c) => c.status))).toEqual(['failed', 'success']);
    expect(calls.some((c) => c.sessionId === undefined && c.environment === undefined)).toBe(true);
    expect(calls.some((c) => c.payload !== undefined)).toBe(true);
    expect(calls.some((c) => c.model === undefined)).toBe(true);
  });

  it("nest each turn's spans under one agent_turn span that covers them, tool results under their call", () => {
    const spans = ofType(all(60, 5), 'trace.event');
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const roots = spans.filter((s) => s.parentSpanId === undefined);
    expect(roots.length).toBeGreaterThan(60);
    expect(distinct(roots.map((r) => `${r.eventType}/${r.name}`))).toEqual(['state_change/agent_turn']);
    for (const span of spans) {
      if (span.parentSpanId === undefined) continue;
      const parent = byId.get(span.parentSpanId);
      expect(parent, 'every parent is in the trace').toBeDefined();
      expect(parent!.traceId).toBe(span.traceId);
      if (span.eventType === 'tool_result') expect(parent!.eventType).toBe('tool_call');
      const root = span.eventType === 'tool_result' ? byId.get(parent!.parentSpanId as string)! : parent!;
      const start = Date.parse(span.startedAt as string);
      const rootStart = Date.parse(root.startedAt as string);
      expect(start).toBeGreaterThanOrEqual(rootStart);
      expect(start + (span.durationMs as number)).toBeLessThanOrEqual(
        rootStart + (root.durationMs as number),
      );
    }
  });

  it('happen within the last 7 days', () => {
    const times = all(200, 3).flatMap((i) =>
      ['startedAt', 'endedAt', 'receivedAt', 'repliedAt', 'sentAt'].flatMap((f) =>
        typeof i.data[f] === 'string' ? [Date.parse(i.data[f] as string)] : [],
      ),
    );
    expect(Math.min(...times)).toBeGreaterThanOrEqual(now - SPREAD_MS);
    expect(Math.max(...times)).toBeLessThan(now);
  });

  it('leave the open ones as the lifecycle sweep would: active within the last two minutes', () => {
    for (const seed of [1, 3, 42]) {
      const latest = new Map<string, number>();
      const ended = new Set<string>();
      for (const item of all(200, seed)) {
        const id = item.data.sessionId as string | undefined;
        if (id === undefined) continue; // a design-time LLM call, of no session
        if (item.type === 'session.ended') ended.add(id);
        for (const f of ['startedAt', 'endedAt', 'receivedAt', 'repliedAt', 'sentAt']) {
          const at = typeof item.data[f] === 'string' ? Date.parse(item.data[f] as string) : 0;
          latest.set(id, Math.max(latest.get(id) ?? 0, at));
        }
      }
      const open = [...latest].filter(([id]) => !ended.has(id));
      expect(open.length).toBeGreaterThan(5);
      // SESSION_IDLE_AFTER_SECONDS defaults to 300: none of them is idle yet.
      for (const [, at] of open) expect(now - at).toBeLessThanOrEqual(ACTIVE_WITHIN_MS);
    }
  });
});

describe('ingestDemo', () => {
  it('submits every item in order, in batches of at most 1,000', async () => {
    const plan = { sessions: 90, seed: 9, now };
    const batches: number[] = [];
    const submitted: string[] = [];
    const quiet = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;
    const result = await ingestDemo(
      plan,
      async (items) => {
        batches.push(items.length);
        submitted.push(...items.map((i) => i.id));
        return { accepted: items.length, rejected: 0, results: [] };
      },
      createProgress('seed', 1, quiet),
    );
    const expected = all(90, 9).map((i) => i.id);
    expect(submitted).toEqual(expected);
    expect(batches.every((n) => n <= MAX_INGEST_ITEMS)).toBe(true);
    expect(batches.slice(0, -1).every((n) => n === MAX_INGEST_ITEMS)).toBe(true);
    expect(result).toEqual({
      items: expected.length,
      accepted: expected.length,
      rejected: 0,
      rejections: [],
    });
  });
});
