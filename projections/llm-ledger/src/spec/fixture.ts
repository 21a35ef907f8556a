import type { LedgerFilter } from '@parley/analytics';
import type { CallInput } from './harness.js';

/** The window the fixture's calls fall in (the first call is at `from`, one call sits at `to`). */
export const window = {
  from: new Date('2025-03-01T00:00:00.000Z'),
  to: new Date('2025-03-02T00:00:00.000Z'),
};

const sessions = [
  { sessionId: 'sess_web_1', channel: 'web_chat', channelType: 'widget', environment: 'production' },
  { sessionId: 'sess_sms_1', channel: 'twilio_sms', channelType: 'sms', environment: 'dev' },
  { sessionId: 'sess_voice_1', channel: 'voice_pipeline', channelType: 'pstn', environment: 'staging' },
  { sessionId: 'sess_wc_1', channel: 'web_chat', channelType: 'widget', environment: 'working-copy' },
] as const;
const models = [
  { provider: 'openai', model: 'gpt-4o-2024-08-06' },
  { provider: 'anthropic', model: 'claude-3-5-sonnet-20241022' },
  { provider: undefined, model: undefined },
  { provider: 'openai', model: undefined },
] as const;
// Some recorded with older names or spellings: the ledger stores the current ones (see `current`).
const origins = [
  { source: 'runtime', sourceSubtype: 'response_generation' },
  { source: 'knowledge', sourceSubtype: 'searchai_kb_query_intelligence' },
  { source: 'Guardrail', sourceSubtype: 'guardrails' },
  { source: 'agent_session', sourceSubtype: 'response_gen' },
] as const;

/** The current names of the older ones above (spec 000 §4.3 aliases, per @parley/analytics). */
const current: Record<string, string> = {
  Guardrail: 'guardrails',
  agent_session: 'runtime',
  response_gen: 'response_generation',
};
const currentName = (name: string): string => current[name] ?? name;
const agents = ['billing-assistant', 'triage', 'billing-assistant', 'returns-agent', 'triage'] as const;

/**
 * `count` calls of one project, deterministic and varied: four sessions on three channels and four
 * environments, design-time calls every fifth (stream llm-<projectId>), models and providers
 * present or absent, failures, ties in latency and cost (for the id tiebreak), and one call
 * outside the window on each side.
 */
export function fixtureCalls(projectId: string, count = 40): CallInput[] {
  const calls: CallInput[] = [];
  for (let i = 0; i < count; i++) {
    const designTime = i % 5 === 4;
    const session = sessions[i % sessions.length]!;
    const { provider, model } = models[i % models.length]!;
    const failed = i % 7 === 3;
    const input = 300 + ((i * 37) % 900);
    const cached = i % 3 === 0 ? 128 : 0;
    const completion = 20 + ((i * 13) % 200);
    const reasoning = i % 6 === 0 ? 64 : 0;
    const startedAt =
      i === count - 1
        ? window.to // exclusive end: never listed
        : i === count - 2
          ? new Date(window.from.getTime() - 1) // just before the window
          : new Date(window.from.getTime() + i * 600_000 + (i % 3) * 17);
    const latencyMs = 400 + (i % 6) * 250; // repeats: ties broken by id
    calls.push({
      callId: `llm_${String(i).padStart(3, '0')}`,
      projectId,
      tenantId: 'ten_fixture',
      ...(designTime ? {} : { sessionId: session.sessionId }),
      ...(provider === undefined ? {} : { provider }),
      ...(model === undefined ? {} : { model }),
      agentName: agents[i % agents.length]!,
      ...(designTime
        ? {}
        : { environment: session.environment, channel: session.channel, channelType: session.channelType }),
      status: failed ? 'failed' : 'success',
      statusCode: failed ? (i % 2 === 0 ? 0 : 429) : 200,
      usage: {
        inputTokens: input,
        cachedTokens: cached,
        completionTokens: completion,
        reasoningTokens: reasoning,
        outputTokens: completion + reasoning,
        totalTokens: input + completion + reasoning,
      },
      latencyMs,
      timeToFirstTokenMs: i % 2 === 0 ? Math.round(latencyMs / 4) : latencyMs,
      streamingUsed: i % 2 === 0,
      cost: Math.round(((i % 8) * 0.00125 + 0.0001) * 1e8) / 1e8,
      ...(designTime
        ? { source: 'evals', sourceSubtype: 'evaluation_suite_generation', sourceId: `suite_${i}` }
        : origins[i % origins.length]!),
      ...(designTime ? {} : { traceId: `trace_${i}` }),
      startedAt: startedAt.toISOString(),
      ...(i % 4 === 1
        ? { payload: { prompt: [{ role: 'user', content: `question ${i}` }], response: `answer ${i}` } }
        : {}),
    });
  }
  return calls;
}

/** What the ledger must hold for a call, derived independently of the projection's code. */
export interface Expected {
  id: string;
  call: CallInput;
  environment: string | null;
  source: string;
  sourceSubtype: string;
  model: string;
  provider: string;
}

export const expectedOf = (call: CallInput): Expected => ({
  id: `${call.sessionId ?? call.projectId}:${call.callId}`,
  call,
  environment:
    call.environment === undefined ? null : call.environment === 'dev' ? 'development' : call.environment,
  source: currentName(call.source),
  sourceSubtype: currentName(call.sourceSubtype),
  model: call.model ?? 'unknown',
  provider: call.provider ?? 'unknown',
});

const within = <T>(values: readonly T[] | undefined, value: T | null | undefined): boolean =>
  values === undefined || (value !== null && value !== undefined && values.includes(value));

/** The ids a filter must return, in order: the oracle of the filter and sort tests. */
export function expectedIds(calls: readonly CallInput[], filter: LedgerFilter): string[] {
  const sortValue = (e: Expected): number => {
    switch (filter.sort.field) {
      case 'timestamp':
        return new Date(e.call.startedAt).getTime();
      case 'latencyMs':
        return e.call.latencyMs;
      case 'cost':
        return e.call.cost;
      case 'totalTokens':
        return e.call.usage.totalTokens;
      default: {
        const never: never = filter.sort.field;
        throw new Error(`unknown sort ${String(never)}`);
      }
    }
  };
  const sign = filter.sort.direction === 'asc' ? 1 : -1;
  return calls
    .map(expectedOf)
    .filter((e) => {
      const at = new Date(e.call.startedAt).getTime();
      return (
        e.call.projectId === filter.projectId &&
        at >= filter.from.getTime() &&
        at < filter.to.getTime() &&
        within(filter.sessionIds, e.call.sessionId) &&
        within(filter.channels, e.call.channel) &&
        within(filter.channelTypes, e.call.channelType) &&
        within(filter.sources, e.source) &&
        within(filter.sourceSubtypes, e.sourceSubtype) &&
        (filter.status === undefined || filter.status === e.call.status) &&
        within(filter.models, e.model) &&
        within(filter.providers, e.provider) &&
        within(filter.environments, e.environment) &&
        within(filter.agentNames, e.call.agentName)
      );
    })
    .sort((a, b) => sign * (sortValue(a) - sortValue(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    .slice(filter.offset, filter.offset + filter.limit)
    .map((e) => e.id);
}
