import { randomUUID } from 'node:crypto';
import type { LedgerFilter } from '@parley/analytics';
import { eventExamples } from '@parley/events/testing';
import { projectionStatus, rebuildProjection } from '@parley/projection-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLedger } from './listLedger.js';
import { llmLedgerProjection } from './llmLedgerProjection.js';
import { expectedIds, fixtureCalls, window } from './spec/fixture.js';
import { type CallInput, createHarness, type Harness } from './spec/harness.js';

let h: Harness;
const projectId = `proj_${randomUUID()}`;
const otherProjectId = `proj_${randomUUID()}`;
let calls: CallInput[];

beforeAll(async () => {
  h = await createHarness();
  calls = fixtureCalls(projectId);
  // Another project's calls in the same sessions' shape: never listed for projectId.
  await h.record([...calls, ...fixtureCalls(otherProjectId, 10)]);
  await h.caughtUp();
});
afterAll(() => h.close());

const base = (patch: Partial<LedgerFilter> = {}): LedgerFilter => ({
  projectId,
  from: window.from,
  to: window.to,
  sort: { field: 'timestamp', direction: 'asc' },
  dataMode: 'summary',
  limit: 10_000,
  offset: 0,
  ...patch,
});

const ids = async (filter: LedgerFilter) =>
  (await listLedger(h.db.pool, filter)).generations.map((g) => g.id);

describe('listLedger', () => {
  it('returns every field of spec 000 §2.3 exactly, for a session call and a design-time call', async () => {
    const project = `proj_${randomUUID()}`;
    const sessionCall: CallInput = {
      ...eventExamples.LlmCallRecorded,
      projectId: project,
      environment: 'dev',
      sourceId: 'agent_billing_v7',
      payload: {
        prompt: [{ role: 'user', content: 'Charged twice?' }],
        response: 'Refunding the duplicate.',
      },
    };
    const designTime: CallInput = {
      callId: 'llm_design_0001',
      projectId: project,
      agentName: 'studio-copilot',
      status: 'failed',
      statusCode: 0,
      usage: {
        inputTokens: 5210,
        cachedTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        outputTokens: 0,
        totalTokens: 5210,
      },
      latencyMs: 30000,
      timeToFirstTokenMs: 30000,
      streamingUsed: false,
      cost: 0,
      source: 'evals',
      sourceSubtype: 'evaluation_suite_generation',
      startedAt: '2024-11-21T10:00:00.000+01:00',
    };
    const [sessionEventId, designEventId] = await h.record([sessionCall, designTime]);
    await h.caughtUp();
    const page = await listLedger(h.db.pool, {
      ...base({
        projectId: project,
        from: new Date('2024-11-21T00:00:00Z'),
        to: new Date('2024-11-22T00:00:00Z'),
      }),
      dataMode: 'full',
    });
    expect(page).toEqual({
      total: 2,
      hasMore: false,
      generations: [
        {
          id: `${project}:llm_design_0001`,
          model: 'unknown',
          agentName: 'studio-copilot',
          provider: 'unknown',
          environment: '',
          status: 'failed',
          inputTokens: 5210,
          cachedTokens: 0,
          completionTokens: 0,
          reasoningTokens: 0,
          outputTokens: 0,
          totalTokens: 5210,
          latencyMs: 30000,
          timeToFirstTokenMs: 30000,
          streamingUsed: false,
          cost: 0,
          timestamp: '2024-11-21T09:00:00.000Z',
          sessionId: '',
          callId: 'llm_design_0001',
          traceId: '',
          eventId: designEventId,
          source: 'evals',
          sourceSubtype: 'evaluation_suite_generation',
          sourceLabel: 'Evals',
          sourceSubtypeLabel: 'Evaluation suite generation',
          sourceId: '',
          channel: '',
          channelType: '',
          statusCode: 0,
          payloadState: 'not_stored',
        },
        {
          id: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0:llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
          model: 'gpt-4o-mini-2024-07-18',
          agentName: 'billing-assistant',
          provider: 'openai',
          environment: 'development',
          status: 'success',
          inputTokens: 1843,
          cachedTokens: 1024,
          completionTokens: 61,
          reasoningTokens: 0,
          outputTokens: 61,
          totalTokens: 1904,
          latencyMs: 1289,
          timeToFirstTokenMs: 342,
          streamingUsed: true,
          cost: 0.00031305,
          timestamp: '2024-11-21T09:15:07.480Z',
          sessionId: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0',
          callId: 'llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          eventId: sessionEventId,
          source: 'runtime',
          sourceSubtype: 'response_generation',
          sourceLabel: 'Runtime',
          sourceSubtypeLabel: 'Response generation',
          sourceId: 'agent_billing_v7',
          channel: 'voice_pipeline',
          channelType: 'pstn',
          statusCode: 200,
          payloadState: 'available',
          payload: {
            prompt: [{ role: 'user', content: 'Charged twice?' }],
            response: 'Refunding the duplicate.',
          },
        },
      ],
    });
    // Field order is the spec's: the API serialises the record as it is.
    expect(Object.keys(page.generations[1] ?? {})).toEqual([
      'id',
      'model',
      'agentName',
      'provider',
      'environment',
      'status',
      'inputTokens',
      'cachedTokens',
      'completionTokens',
      'reasoningTokens',
      'outputTokens',
      'totalTokens',
      'latencyMs',
      'timeToFirstTokenMs',
      'streamingUsed',
      'cost',
      'timestamp',
      'sessionId',
      'callId',
      'traceId',
      'eventId',
      'source',
      'sourceSubtype',
      'sourceLabel',
      'sourceSubtypeLabel',
      'sourceId',
      'channel',
      'channelType',
      'statusCode',
      'payloadState',
      'payload',
    ]);
  });

  it('lists the window only: from inclusive, to exclusive, one project', async () => {
    const page = await listLedger(h.db.pool, base());
    expect(page.total).toBe(38);
    expect(page.generations.map((g) => g.id)).toEqual(expectedIds(calls, base()));
    expect(page.generations[0]?.timestamp).toBe(window.from.toISOString());
    expect(page.generations.some((g) => g.timestamp === window.to.toISOString())).toBe(false);
  });

  const single: [string, Partial<LedgerFilter>][] = [
    ['sessionIds', { sessionIds: ['sess_web_1', 'sess_voice_1'] }],
    ['channels', { channels: ['twilio_sms'] }],
    ['channels (no alias expansion)', { channels: ['web'] }],
    ['channelTypes', { channelTypes: ['pstn', 'sms'] }],
    ['sources', { sources: ['knowledge', 'evals'] }],
    ['sources (older names stored as current)', { sources: ['runtime'] }],
    ['sourceSubtypes (older names stored as current)', { sourceSubtypes: ['response_generation'] }],
    ['sources (an older name is never stored)', { sources: ['agent_session'] }],
    ['status success', { status: 'success' }],
    ['status failed', { status: 'failed' }],
    ['models', { models: ['gpt-4o-2024-08-06'] }],
    ['models unknown', { models: ['unknown'] }],
    ['models unknown or named', { models: ['unknown', 'claude-3-5-sonnet-20241022'] }],
    ['providers', { providers: ['anthropic'] }],
    ['providers unknown', { providers: ['unknown'] }],
    ['environments development', { environments: ['development'] }],
    ['environments dev (not a stored spelling)', { environments: ['dev'] }],
    ['environments', { environments: ['staging', 'working-copy'] }],
    ['agentNames', { agentNames: ['triage'] }],
    ['agentNames is case-sensitive', { agentNames: ['Triage'] }],
  ];

  it.each(single)('filters by %s alone, exactly', async (_name, patch) => {
    const filter = base(patch);
    const page = await listLedger(h.db.pool, filter);
    const expected = expectedIds(calls, filter);
    expect(page.generations.map((g) => g.id)).toEqual(expected);
    expect(page.total).toBe(expected.length);
    expect(expected.length).toBeLessThan(38);
  });

  it('matches some calls with each filter that names present values', () => {
    for (const [name, patch] of single) {
      const n = expectedIds(calls, base(patch)).length;
      if (/alias|not a stored|never stored|case-sensitive/.test(name)) expect(n, name).toBe(0);
      else expect(n, name).toBeGreaterThan(0);
    }
  });

  it('design-time calls match no channel, channel type, environment or session', async () => {
    const designTime = (await listLedger(h.db.pool, base({ sources: ['evals'] }))).generations;
    expect(designTime.length).toBe(7);
    expect(designTime.every((g) => g.channel === '' && g.environment === '' && g.sessionId === '')).toBe(
      true,
    );
    const everyChannel = ['web_chat', 'twilio_sms', 'voice_pipeline'];
    const envs = ['development', 'staging', 'production', 'working-copy'];
    for (const filter of [
      { channels: everyChannel },
      { environments: envs },
      { channelTypes: ['widget', 'sms', 'pstn'] },
    ]) {
      const listed = await ids(base({ ...filter, sources: ['evals'] }));
      expect(listed).toEqual([]);
    }
  });

  it('combines filters with AND (OR within one)', async () => {
    const combos: Partial<LedgerFilter>[] = [
      { channels: ['web_chat'], status: 'success', models: ['unknown'] },
      {
        sources: ['runtime'],
        environments: ['production', 'development'],
        agentNames: ['billing-assistant', 'triage'],
      },
      {
        sessionIds: ['sess_sms_1', 'sess_wc_1'],
        providers: ['openai'],
        sourceSubtypes: ['response_generation', 'guardrails'],
      },
      { channelTypes: ['widget'], environments: ['working-copy'], status: 'failed' },
      { channels: ['voice_pipeline'], sources: ['knowledge'] },
    ];
    let nonEmpty = 0;
    for (const patch of combos) {
      const filter = base(patch);
      const expected = expectedIds(calls, filter);
      if (expected.length > 0) nonEmpty += 1;
      expect(await ids(filter)).toEqual(expected);
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(3);
  });

  const sorts: LedgerFilter['sort'][] = (['timestamp', 'latencyMs', 'cost', 'totalTokens'] as const).flatMap(
    (field) => (['asc', 'desc'] as const).map((direction) => ({ field, direction })),
  );

  it.each(sorts)('sorts by $field $direction, ties broken by id', async (sort) => {
    const filter = base({ sort });
    const listed = await ids(filter);
    expect(listed).toEqual(expectedIds(calls, filter));
    // And page by page, the pages concatenate to the whole list.
    const pages: string[] = [];
    for (let offset = 0; offset < 38; offset += 7)
      pages.push(...(await ids(base({ sort, limit: 7, offset }))));
    expect(pages).toEqual(listed);
  });

  it('has ties to break in latency and cost', () => {
    const latencies = calls.map((c) => c.latencyMs);
    expect(new Set(latencies).size).toBeLessThan(latencies.length);
  });

  it('pages with limit and offset: total counts all matches, hasMore tells the truth', async () => {
    const first = await listLedger(h.db.pool, base({ limit: 10 }));
    expect(first).toMatchObject({ total: 38, hasMore: true });
    expect(first.generations).toHaveLength(10);
    const last = await listLedger(h.db.pool, base({ limit: 10, offset: 30 }));
    expect(last).toMatchObject({ total: 38, hasMore: false });
    expect(last.generations).toHaveLength(8);
    const exact = await listLedger(h.db.pool, base({ limit: 8, offset: 30 }));
    expect(exact.hasMore).toBe(false);
    const beyond = await listLedger(h.db.pool, base({ limit: 10, offset: 100 }));
    expect(beyond).toEqual({ total: 38, hasMore: false, generations: [] });
    const none = await listLedger(h.db.pool, base({ projectId: `proj_${randomUUID()}` }));
    expect(none).toEqual({ total: 0, hasMore: false, generations: [] });
  });

  it('adds payload only with dataMode=full and only where stored', async () => {
    const summary = (await listLedger(h.db.pool, base())).generations;
    const full = (await listLedger(h.db.pool, base({ dataMode: 'full' }))).generations;
    expect(summary.every((g) => !('payload' in g))).toBe(true);
    expect(full.map((g) => g.id)).toEqual(summary.map((g) => g.id));
    for (const record of full) {
      const call = calls.find((c) => `${c.sessionId ?? c.projectId}:${c.callId}` === record.id);
      if (call?.payload) {
        expect(record.payloadState).toBe('available');
        expect(record.payload).toEqual(call.payload);
      } else {
        expect(record.payloadState).toBe('not_stored');
        expect('payload' in record).toBe(false);
      }
    }
    expect(full.filter((g) => g.payload !== undefined).length).toBeGreaterThan(5);
  });

  it('survives a rebuild unchanged, and reports no lag', async () => {
    const before = await listLedger(h.db.pool, base({ dataMode: 'full' }));
    const result = await rebuildProjection({
      pool: h.db.pool,
      store: h.store,
      projection: llmLedgerProjection,
    });
    expect(result.generation).toBeGreaterThanOrEqual(2);
    expect(await listLedger(h.db.pool, base({ dataMode: 'full' }))).toEqual(before);
    const [status] = await projectionStatus(h.db.pool, h.store, [llmLedgerProjection]);
    expect(status?.state).toBe('ok');
  });
});
