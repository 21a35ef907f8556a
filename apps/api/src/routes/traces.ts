import { Readable } from 'node:stream';
import {
  addRoute,
  errorResponses,
  HttpError,
  requireCaller,
  type VerifyApiKey,
  type VerifyJwt,
} from '@parley/http';
import { ANALYSIS_RULES, type TraceReads, TraceTooLargeError } from '@parley/projection-traces';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import {
  dateRange,
  eventTypes,
  includesMetrics,
  MAX_SESSION_IDS,
  multi,
  paging,
  type RawQuery,
  sessionIdOf,
  single,
} from './traces/traceQueries.js';
import {
  analysisBodyShape,
  childrenShape,
  csvShape,
  exportQuery,
  generationsPageShape,
  generationsQuery,
  metricsBodyShape,
  pagingQuery,
  projectParams,
  sessionParams,
  spanParams,
  tracePageShape,
  tracesQuery,
} from './traces/traceSchemas.js';

export interface TracesRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** User JWT bearer tokens; unset: only platform API keys (a JWT is 401). */
  verifyJwt?: VerifyJwt | undefined;
  reads: TraceReads;
}

/** The permission every trace route needs (scope `traces.read`). */
export const TRACE_READ_PERMISSION = 'trace:read';

const BASE = '/api/projects/:projectId/sessions';

const errors = {
  400: errorResponses.standard,
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  429: errorResponses.rateLimited,
};

const sessionNotFound = () => new HttpError('SESSION_NOT_FOUND', 404, 'Session not found');

/**
 * The session trace APIs (spec 001 §4.8) under /api/projects/{projectId}/sessions, bearer
 * authentication (a platform API key or a user JWT, requireCaller) with the permission
 * `trace:read`. Bodies and rules: docs/traces.md.
 */
export const tracesRoutes: FastifyPluginAsync<TracesRouteOptions> = async (app, deps) => {
  const preHandler = requireCaller({
    verifyApiKey: deps.verifyApiKey,
    verifyJwt: deps.verifyJwt,
    permission: TRACE_READ_PERMISSION,
    projectParam: 'projectId',
  });
  const common = {
    tags: ['traces'],
    security: [{ bearer: [] }, { apiKey: [] }, { userJwt: [] }] as Array<Record<string, string[]>>,
    validation: 'document' as const,
    preHandler,
  };
  const { reads } = deps;

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${BASE}/:sessionId/traces`,
    summary: "List a session's trace events",
    description:
      'Trace events of the session in order (startedAt, then stream order), filtered by eventType and decisionKind; include=metrics adds the session metrics.',
    operationId: 'listSessionTraces',
    params: sessionParams,
    querystring: tracesQuery,
    response: { 200: tracePageShape, ...errors, 422: errorResponses.standard },
    handler: async (request, reply) => {
      const { projectId } = request.params;
      const sessionId = sessionIdOf(request.params);
      const query = request.query as RawQuery;
      const types = eventTypes(query);
      const decisionKinds = multi(query, 'decisionKind');
      const withMetrics = includesMetrics(query);
      const { limit, offset } = paging(query);
      const page = await reads.listTraces({
        projectId,
        sessionId,
        ...(types && { eventTypes: types }),
        ...(decisionKinds && { decisionKinds }),
        limit,
        offset,
      });
      if (page === null) throw sessionNotFound();
      const metrics = withMetrics ? await metricsOf(reads, projectId, sessionId) : undefined;
      noStore(reply);
      return {
        success: true,
        sessionId,
        traces: page.traces,
        pagination: { total: page.total, limit, offset },
        hasMore: offset + page.traces.length < page.total,
        ...(metrics && { metrics }),
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${BASE}/:sessionId/traces/:spanId/children`,
    summary: 'List the nested events of a span',
    description:
      'The span itself and its direct children (events whose parentSpanId is the span id), in order.',
    operationId: 'listSpanChildren',
    params: spanParams,
    querystring: pagingQuery,
    response: { 200: childrenShape, ...errors },
    handler: async (request, reply) => {
      const { projectId, spanId } = request.params;
      const sessionId = sessionIdOf(request.params);
      const { limit, offset } = paging(request.query as RawQuery);
      const result = await reads.listSpanChildren({ projectId, sessionId, spanId, limit, offset });
      if (result.found === 'session_not_found') throw sessionNotFound();
      if (result.found === 'span_not_found') throw new HttpError('SPAN_NOT_FOUND', 404, 'Span not found');
      noStore(reply);
      return {
        success: true,
        sessionId,
        span: result.span,
        children: result.page.traces,
        pagination: { total: result.page.total, limit, offset },
        hasMore: offset + result.page.traces.length < result.page.total,
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${BASE}/:sessionId/metrics`,
    summary: 'Aggregated execution metrics of a session',
    description:
      'Total session latency, per-turn latency, token usage per LLM call, tool call count and success rate, guardrail evaluation count and block rate.',
    operationId: 'getSessionMetrics',
    params: sessionParams,
    response: { 200: metricsBodyShape, ...errors, 422: errorResponses.standard },
    handler: async (request, reply) => {
      const { projectId } = request.params;
      const sessionId = sessionIdOf(request.params);
      const metrics = await metricsOf(reads, projectId, sessionId);
      noStore(reply);
      return { success: true, data: { sessionId, ...metrics } };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${BASE}/:sessionId/analysis`,
    summary: 'Diagnostics of a session',
    description:
      'Slow spans, error patterns, decision anomalies and optimization suggestions, by the documented rules.',
    operationId: 'getSessionAnalysis',
    params: sessionParams,
    response: { 200: analysisBodyShape, ...errors, 422: errorResponses.standard },
    handler: async (request, reply) => {
      const { projectId } = request.params;
      const sessionId = sessionIdOf(request.params);
      const result = await guardSize(() => reads.traceAnalysis(projectId, sessionId));
      if (result === null) throw sessionNotFound();
      noStore(reply);
      return { success: true, data: { sessionId, ...result.analysis, rules: ANALYSIS_RULES } };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${BASE}/export`,
    summary: 'Export trace events as CSV',
    description:
      "Streams the project's trace events (RFC 4180, CRLF, a header record) in startedAt order, filtered by sessionId, eventType and a date range; any number of rows with bounded memory.",
    operationId: 'exportTraces',
    params: projectParams,
    querystring: exportQuery,
    response: { 200: csvShape, ...errors },
    handler: async (request, reply) => {
      const { projectId } = request.params;
      const query = request.query as RawQuery;
      const format = single(query, 'format') ?? 'csv';
      if (format !== 'csv') throw new HttpError('INVALID_FORMAT', 400, 'format must be csv');
      const sessionIds = multi(query, 'sessionId', MAX_SESSION_IDS);
      const types = eventTypes(query);
      const csv = reads.exportCsv({
        projectId,
        ...(sessionIds && { sessionIds }),
        ...(types && { eventTypes: types }),
        ...dateRange(query),
      });
      // The header and the first batch are read before answering, so that a failing query is still
      // a 500 with a body; a failure after that aborts the response (docs/traces.md).
      const head: string[] = [];
      for (let i = 0; i < 2; i++) {
        const next = await csv.next();
        if (next.done) break;
        head.push(next.value);
      }
      noStore(reply);
      reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', `attachment; filename="traces-${fileSafe(projectId)}.csv"`);
      return reply.send(Readable.from(resume(head, csv), { objectMode: false }));
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${BASE}/generations`,
    summary: 'LLM generations across sessions',
    description:
      "LLM calls made in the project's sessions, newest first: model, provider, token usage, latency, cost and prompt metadata (never the prompt).",
    operationId: 'listGenerations',
    params: projectParams,
    querystring: generationsQuery,
    response: { 200: generationsPageShape, ...errors },
    handler: async (request, reply) => {
      const { projectId } = request.params;
      const query = request.query as RawQuery;
      const status = single(query, 'status');
      if (status !== undefined && status !== 'success' && status !== 'failed') {
        throw new HttpError('VALIDATION_ERROR', 400, 'querystring.status: success or failed');
      }
      const sessionIds = multi(query, 'sessionId', MAX_SESSION_IDS);
      const models = multi(query, 'model');
      const providers = multi(query, 'provider');
      const agentNames = multi(query, 'agentName');
      const { limit, offset } = paging(query);
      const page = await reads.listGenerations({
        projectId,
        ...dateRange(query),
        ...(sessionIds && { sessionIds }),
        ...(models && { models }),
        ...(providers && { providers }),
        ...(agentNames && { agentNames }),
        ...(status && { status }),
        limit,
        offset,
      });
      noStore(reply);
      return {
        success: true,
        generations: page.generations,
        pagination: { total: page.total, limit, offset },
        hasMore: offset + page.generations.length < page.total,
      };
    },
  });
};

async function metricsOf(reads: TraceReads, projectId: string, sessionId: string) {
  const metrics = await guardSize(() => reads.sessionMetrics(projectId, sessionId));
  if (metrics === null) throw sessionNotFound();
  return metrics;
}

/**
 * Sessions too large to aggregate in memory are 422 TRACE_TOO_LARGE: the request is well-formed and
 * the session exists, but this session cannot be processed this way, and a retry gets the same
 * answer. Not 413, which spec 000 §7 keeps for request bodies (docs/decisions.md).
 */
async function guardSize<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof TraceTooLargeError) {
      throw new HttpError(
        'TRACE_TOO_LARGE',
        422,
        `The session has more than ${err.limit} trace events; use the export`,
      );
    }
    throw err;
  }
}

async function* resume(head: readonly string[], rest: AsyncGenerator<string>): AsyncGenerator<string> {
  yield* head;
  yield* rest;
}

const fileSafe = (value: string) => value.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);

function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}
