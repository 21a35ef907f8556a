import type {
  AnalyticsQuery,
  AnalyticsQueryError,
  LedgerFilter,
  LedgerStatsFilter,
  SessionListFilter,
} from '@parley/analytics';
import {
  parseLedgerQuery,
  parseLedgerStatsQuery,
  parseSessionListQuery,
  sessionSearchQuery,
} from '@parley/analytics';
import { addRoute, analyticsError, errorResponses, requireApiKey, type VerifyApiKey } from '@parley/http';
import type { LedgerPage, LedgerStats } from '@parley/projection-llm-ledger';
import type { SessionPage } from '@parley/projection-session-summaries';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import {
  ledgerPageShape,
  ledgerQuery,
  ledgerStatsQuery,
  ledgerStatsShape,
  projectParams,
  sessionListQuery,
  sessionPageShape,
  sessionSearchBody,
  wireFreshness,
} from './analyticsSchemas.js';
import { type PageCache, pageCacheKey } from './pageCache.js';

/** How far a read model has caught up with the log (the projection runner's registry). */
export interface Freshness {
  /** `commit/prepare` of the last event applied; null when none. */
  position: string | null;
  recordedAt: Date | null;
  /** The live generation (a rebuild swaps in another); absent or null: unknown. */
  generation?: number | null;
}

export type AnalyticsProjection = 'session-summaries' | 'llm-ledger';

export interface AnalyticsRouteOptions {
  verify: VerifyApiKey;
  listSessions(filter: SessionListFilter): Promise<SessionPage>;
  listLedger(filter: LedgerFilter): Promise<LedgerPage>;
  /** The ledger's time series (GET …/llm-ledger/stats). */
  ledgerStats(filter: LedgerStatsFilter): Promise<LedgerStats>;
  /** Project setting: is the identity field group (callerNumber filter) enabled? */
  callerNumberLookupEnabled(projectId: string): Promise<boolean>;
  /** How far a read model has caught up with the log (the freshness field). */
  freshness(projection: AnalyticsProjection): Promise<Freshness>;
  /** Serialised pages kept while their read model's position holds (pageCache.ts); absent: none. */
  pageCache?: PageCache;
}

const errors = {
  400: errorResponses.analytics,
  401: errorResponses.authentication,
  403: errorResponses.analytics,
  404: errorResponses.analytics,
  429: errorResponses.analytics,
};

/**
 * The two public analytics APIs (spec 000 §4.2 with its POST variant, §4.3) and the ledger's time series (ours): x-api-key only, the
 * query parsed by @parley/analytics, the page read from the projections,
 * and a `freshness` field saying which log position the page reflects.
 */
export const analyticsRoutes: FastifyPluginAsync<AnalyticsRouteOptions> = async (app, deps) => {
  /** The session list, GET and POST alike: one parser, one page, one cache entry per filter. */
  const sessionListPage = async (projectId: string, query: AnalyticsQuery, reply: FastifyReply) => {
    // The setting is read only when it matters (one lookup fewer on most requests).
    const callerNumberLookupEnabled =
      query.callerNumber === undefined ? true : await deps.callerNumberLookupEnabled(projectId);
    const parsed = parseSessionListQuery(projectId, query, { callerNumberLookupEnabled });
    if (!parsed.ok) throw toHttpError(parsed.error);
    // Freshness first: checkpoints only advance, so the page reflects at least this position.
    const freshness = await deps.freshness('session-summaries');
    noStore(reply);
    return cachedPage(deps.pageCache, reply, 'sessions', parsed.filter, freshness, async () => {
      const page = await deps.listSessions(parsed.filter);
      return {
        success: true,
        total: page.total,
        offset: parsed.filter.offset,
        limit: parsed.filter.limit,
        hasMore: page.hasMore,
        sessions: page.sessions,
        freshness: wireFreshness(freshness),
      };
    });
  };

  addRoute(app, {
    method: 'GET',
    url: '/api/public/analytics/projects/:projectId/sessions',
    summary: 'List session summaries',
    description:
      'Needs a platform API key with the `analytics.read` scope (permission `session_summary:read`) in `x-api-key`. Either both fromDate and toDate, or sessionIds. sortBy and sortOrder are our extension of the spec.',
    operationId: 'listSessionSummaries',
    tags: ['analytics'],
    security: [{ apiKey: [] }],
    apiFamily: 'analytics',
    validation: 'document',
    params: projectParams,
    querystring: sessionListQuery,
    response: { 200: sessionPageShape, ...errors },
    preHandler: requireApiKey({
      verify: deps.verify,
      permission: 'session_summary:read',
      allowBearer: false,
    }),
    handler: async (request, reply) =>
      sessionListPage(request.principal!.projectId, request.query as AnalyticsQuery, reply),
  });

  addRoute(app, {
    method: 'POST',
    url: '/api/public/analytics/projects/:projectId/sessions/search',
    summary: 'List session summaries, the filters in a JSON body',
    description:
      'The session list with its filters in the body instead of the URL, so caller numbers and long id lists never reach access logs or proxies (docs/api.md). Same permission, validation, codes, envelope, paging, 1 MiB cap and freshness as the GET: each field is the query parameter of the same name (an array for a repeated one), traceDimensions an object.',
    operationId: 'searchSessionSummaries',
    tags: ['analytics'],
    security: [{ apiKey: [] }],
    apiFamily: 'analytics',
    validation: 'document',
    params: projectParams,
    body: sessionSearchBody,
    response: { 200: sessionPageShape, ...errors },
    preHandler: requireApiKey({
      verify: deps.verify,
      permission: 'session_summary:read',
      allowBearer: false,
    }),
    handler: async (request, reply) => {
      const query = sessionSearchQuery(request.body);
      if (!query.ok) throw toHttpError(query.error);
      return sessionListPage(request.principal!.projectId, query.filter, reply);
    },
  });

  addRoute(app, {
    method: 'GET',
    url: '/api/public/analytics/projects/:projectId/llm-ledger',
    summary: 'List LLM calls (the LLM call ledger)',
    description:
      'Needs a platform API key with the `analytics.read` scope (permission `llm_ledger:read`) in `x-api-key`. fromDate and toDate are required.',
    operationId: 'listLlmLedger',
    tags: ['analytics'],
    security: [{ apiKey: [] }],
    apiFamily: 'analytics',
    validation: 'document',
    params: projectParams,
    querystring: ledgerQuery,
    response: { 200: ledgerPageShape, ...errors },
    preHandler: requireApiKey({ verify: deps.verify, permission: 'llm_ledger:read', allowBearer: false }),
    handler: async (request, reply) => {
      const parsed = parseLedgerQuery(request.principal!.projectId, request.query as AnalyticsQuery);
      if (!parsed.ok) throw toHttpError(parsed.error);
      const freshness = await deps.freshness('llm-ledger');
      noStore(reply);
      return cachedPage(deps.pageCache, reply, 'llm-ledger', parsed.filter, freshness, async () => {
        const page = await deps.listLedger(parsed.filter);
        return {
          success: true,
          statusCode: 200,
          total: page.total,
          limit: parsed.filter.limit,
          offset: parsed.filter.offset,
          dataMode: parsed.filter.dataMode,
          hasMore: page.hasMore,
          generations: page.generations,
          freshness: wireFreshness(freshness),
        };
      });
    },
  });

  addRoute(app, {
    method: 'GET',
    url: '/api/public/analytics/projects/:projectId/llm-ledger/stats',
    summary: 'LLM call time series (the ledger, bucketed and grouped)',
    description:
      'Needs a platform API key with the `analytics.read` scope (permission `llm_ledger:read`) in `x-api-key`. fromDate and toDate are required; every filter of the ledger applies. Our extension of the spec.',
    operationId: 'llmLedgerStats',
    tags: ['analytics'],
    security: [{ apiKey: [] }],
    apiFamily: 'analytics',
    validation: 'document',
    params: projectParams,
    querystring: ledgerStatsQuery,
    response: { 200: ledgerStatsShape, ...errors },
    preHandler: requireApiKey({ verify: deps.verify, permission: 'llm_ledger:read', allowBearer: false }),
    handler: async (request, reply) => {
      const parsed = parseLedgerStatsQuery(request.principal!.projectId, request.query as AnalyticsQuery);
      if (!parsed.ok) throw toHttpError(parsed.error);
      const freshness = await deps.freshness('llm-ledger');
      noStore(reply);
      return cachedPage(deps.pageCache, reply, 'llm-ledger-stats', parsed.filter, freshness, async () => {
        const stats = await deps.ledgerStats(parsed.filter);
        return {
          success: true,
          bucket: parsed.filter.bucket,
          groupBy: parsed.filter.groupBy,
          fromDate: parsed.filter.from.toISOString(),
          toDate: parsed.filter.to.toISOString(),
          series: stats.series,
          totals: stats.totals,
          freshness: wireFreshness(freshness),
        };
      });
    },
  });
};

/**
 * The page for this filter: from the cache when it was read at the read model's current position
 * (and generation), else read, serialised with the route's response schema, kept and sent.
 */
async function cachedPage(
  cache: PageCache | undefined,
  reply: FastifyReply,
  route: string,
  filter: unknown,
  freshness: Freshness,
  read: () => Promise<object>,
): Promise<unknown> {
  if (cache === undefined) return read();
  const key = pageCacheKey(route, filter);
  const at = `${freshness.generation ?? '-'}@${freshness.position ?? '-'}`;
  let body = cache.get(key, at);
  if (body === undefined) {
    const serialised = reply.serialize(await read());
    body =
      typeof serialised === 'string' ? serialised : Buffer.from(serialised as ArrayBuffer).toString('utf8');
    cache.set(key, at, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}

function toHttpError(error: AnalyticsQueryError) {
  return analyticsError(error.code, error.status, error.message, {
    details: error.details,
    required: requiredOf(error),
  });
}

/** The analytics envelope's `required`: what the request needed (packages/http README, Decisions 3). */
export function requiredOf(error: AnalyticsQueryError): string {
  const { details } = error;
  const parameter = typeof details.parameter === 'string' ? details.parameter : undefined;
  if (typeof details.required === 'string') return details.required;
  if (error.code === 'CALLER_NUMBER_LOOKUP_DISABLED')
    return 'reporting.identityFields enabled for the project';
  if (parameter === undefined) return '';
  if (Array.isArray(details.allowed)) return `${parameter}: ${details.allowed.join(', ')}`;
  if (error.code === 'TOO_MANY_FILTER_VALUES' && typeof details.max === 'number') {
    return `${parameter}: at most ${details.max} values`;
  }
  if (typeof details.min === 'number' && typeof details.max === 'number') {
    return `${parameter}: integer ${details.min}..${details.max}`;
  }
  return '';
}
