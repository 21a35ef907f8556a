import { auditStream, toAppend } from '@parley/events';
import { formatPosition, type LogTransaction, type Position } from '@parley/eventstore';
import {
  addRoute,
  type Caller,
  errorResponses,
  HttpError,
  requireCaller,
  type VerifyApiKey,
  type VerifyJwt,
} from '@parley/http';
import { ParleyError } from '@parley/platform';
import type {
  GenerationStatus,
  ProjectionOverview,
  ProjectionsAdmin,
  RebuildRequest,
  RebuildRequester,
} from '@parley/projection-runner';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';

export interface ProjectionsRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  /** @parley/projection-runner createProjectionsAdmin (the build's projections, pg-boss to send). */
  admin: ProjectionsAdmin;
}

/** Permissions of the projections admin API: deployment-wide (scopes projections.read, projections.admin). */
export const PROJECTION_READ_PERMISSION = 'projection:read';
export const PROJECTION_REBUILD_PERMISSION = 'projection:rebuild';

const iso = z.string().describe('ISO 8601');
const position = z.string().describe('A log position `commit/prepare` (decimal, may exceed 2^53)');

const rebuildShape = z.object({
  id: z.string().describe('The rebuild (a uuid)'),
  projection: z.string(),
  state: z.enum(['queued', 'running', 'completed', 'failed']),
  requestedAt: iso,
  startedAt: iso.nullable().describe('When the worker first took it; null while queued'),
  finishedAt: iso.nullable(),
  generation: z
    .number()
    .int()
    .nullable()
    .describe('The generation being built once started; when completed, the one now live'),
  eventsProcessed: z.number().int().describe('Events folded into the new generation so far'),
  eventsTotal: z
    .number()
    .int()
    .nullable()
    .describe('Processed plus still to replay, when counted (a lower bound past 1,000,000 behind)'),
  eventsPerSecond: z.number().int().nullable(),
  error: z.string().nullable().describe('Why it failed (state failed only)'),
  requestedBy: z.object({
    kind: z.enum(['api_key', 'user']),
    id: z.string().describe('The key id or the JWT subject'),
  }),
});

const generationShape = z.object({
  generation: z.number().int(),
  version: z.number().int(),
  status: z.enum(['building', 'live', 'retired']),
  failure: z
    .object({ error: z.string(), eventId: z.string().nullable(), eventType: z.string().nullable(), at: iso })
    .nullable()
    .describe('Set when a handler failed: the generation is stopped at that event'),
  checkpoint: position.nullable().describe('The last event applied; null before the first'),
  eventsProcessed: z.number().int(),
  eventsBehind: z.number().int().describe('Events of its types after the checkpoint, counted up to the cap'),
  eventsBehindCapped: z.boolean(),
  secondsBehind: z.number(),
  lastEventRecordedAt: iso.nullable(),
  updatedAt: iso,
});

const projectionShape = z.object({
  name: z.string(),
  state: z.enum(['ok', 'building', 'failed', 'rebuild_required', 'unregistered']),
  codeVersion: z.number().int(),
  liveGeneration: z.number().int().nullable(),
  liveVersion: z.number().int().nullable(),
  versionMismatch: z.boolean(),
  generations: z.array(generationShape).describe('Live and building generations (retired ones left out)'),
  rebuild: rebuildShape.nullable().describe('The latest rebuild requested through the API'),
});

const listShape = z.object({
  success: z.literal(true),
  head: z.object({ position: position.nullable(), recordedAt: iso.nullable() }),
  projections: z.array(projectionShape),
});
const oneShape = z.object({ success: z.literal(true), rebuild: rebuildShape });

const nameParams = z.object({ name: z.string().min(1).max(256) });
const rebuildParams = nameParams.extend({ rebuildId: z.string().min(1).max(256) });

const conflict = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.literal('REBUILD_IN_PROGRESS'),
      message: z.string(),
      details: z.object({ rebuildId: z.string() }),
    }),
  })
  .describe('A rebuild of this projection is queued or running: `error.details.rebuildId`');

const errors = {
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  429: errorResponses.rateLimited,
};

const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const START = (p: Position) => p.commit === 0n && p.prepare === 0n;

export const toRebuildBody = (r: RebuildRequest): z.infer<typeof rebuildShape> => ({
  id: r.id,
  projection: r.projection,
  state: r.state,
  requestedAt: r.requestedAt.toISOString(),
  startedAt: isoOrNull(r.startedAt),
  finishedAt: isoOrNull(r.finishedAt),
  generation: r.generation,
  eventsProcessed: r.eventsProcessed,
  eventsTotal: r.eventsTotal,
  eventsPerSecond: r.eventsPerSecond,
  error: r.error,
  requestedBy: { kind: r.requestedBy.kind, id: r.requestedBy.id },
});

const toGenerationBody = (g: GenerationStatus): z.infer<typeof generationShape> => ({
  generation: g.generation,
  version: g.version,
  status: g.status,
  failure:
    g.failure === null
      ? null
      : {
          error: g.failure.error,
          eventId: g.failure.eventId,
          eventType: g.failure.eventType,
          at: g.failure.at.toISOString(),
        },
  checkpoint: START(g.checkpoint) ? null : formatPosition(g.checkpoint),
  eventsProcessed: g.eventsProcessed,
  eventsBehind: g.eventsBehind,
  eventsBehindCapped: g.eventsBehindCapped,
  secondsBehind: g.secondsBehind,
  lastEventRecordedAt: isoOrNull(g.lastEventRecordedAt),
  updatedAt: g.updatedAt.toISOString(),
});

const toProjectionBody = (p: ProjectionOverview): z.infer<typeof projectionShape> => ({
  name: p.name,
  state: p.state,
  codeVersion: p.codeVersion,
  liveGeneration: p.liveGeneration,
  liveVersion: p.liveVersion,
  versionMismatch: p.versionMismatch,
  generations: p.generations.map(toGenerationBody),
  rebuild: p.rebuild === null ? null : toRebuildBody(p.rebuild),
});

const projectionNotFound = (name: string) =>
  new HttpError('PROJECTION_NOT_FOUND', 404, `No projection named ${JSON.stringify(name)}`);

const requesterOf = (caller: Caller): RebuildRequester => ({
  kind: caller.kind === 'apiKey' ? 'api_key' : 'user',
  id: caller.subject,
});

/**
 * AuditRecorded `projection:rebuild_requested` in the stream `audit-<projectId>` of the caller's
 * project (a key's; a JWT's first), committed with the request. A JWT naming no project: none.
 */
async function auditRequest(tx: LogTransaction, caller: Caller, rebuild: RebuildRequest): Promise<void> {
  const projectId = caller.projectIds[0];
  if (projectId === undefined) return;
  await tx.append(auditStream(projectId), [
    toAppend(
      'AuditRecorded',
      {
        projectId,
        tenantId: caller.tenantId,
        action: 'projection:rebuild_requested',
        principal: { kind: caller.kind === 'apiKey' ? 'api_key' : 'user', id: caller.subject },
        resource: { type: 'projection', id: rebuild.projection },
        content: { rebuildId: rebuild.id },
        at: rebuild.requestedAt.toISOString(),
      },
      { tenantId: caller.tenantId, projectId },
    ),
  ]);
}

/**
 * The projections admin API (docs/api.md "Projections admin API"): what `parley projections status`
 * shows, and rebuilds run by the worker. Deployment-wide, not project-scoped: a platform API key or
 * user JWT with `projection:read` (scope projections.read or projections.admin) reads, with
 * `projection:rebuild` (projections.admin) requests rebuilds. Operators only.
 */
export const projectionsRoutes: FastifyPluginAsync<ProjectionsRouteOptions> = async (app, options) => {
  const { admin } = options;
  const auth = (permission: string) =>
    requireCaller({
      verifyApiKey: options.verifyApiKey,
      verifyJwt: options.verifyJwt,
      permission,
      projectParam: null,
    });
  const common = {
    tags: ['projections'],
    security: [{ bearer: [] }, { apiKey: [] }, { userJwt: [] }] as Array<Record<string, string[]>>,
  };

  addRoute(app, {
    ...common,
    method: 'GET',
    url: '/api/v1/projections',
    summary: 'Every projection: state, generations and lag, and its latest API rebuild',
    description:
      'Deployment-wide (every project’s read models): the CLI’s `parley projections status`, with the head of the ' +
      'log and each projection’s latest rebuild requested through this API. Permission projection:read.',
    operationId: 'listProjections',
    response: { 200: listShape, ...errors },
    preHandler: auth(PROJECTION_READ_PERMISSION),
    handler: async (_request, reply) => {
      const { head, projections } = await admin.overview();
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        head: {
          position: head === null ? null : formatPosition(head.position),
          recordedAt: head === null ? null : head.recordedAt.toISOString(),
        },
        projections: projections.map(toProjectionBody),
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: '/api/v1/projections/:name/rebuilds',
    summary: 'Rebuild a projection from the start of the log (run by the worker)',
    description:
      'Queues a blue/green rebuild: the live generation keeps serving until the new one replaces it. Answers 202 ' +
      'with the queued rebuild; follow it with GET …/rebuilds/{rebuildId}. One at a time per projection (409 ' +
      'REBUILD_IN_PROGRESS with `error.details.rebuildId`); 503 QUEUE_UNAVAILABLE when no worker ever ran. ' +
      'Permission projection:rebuild.',
    operationId: 'requestProjectionRebuild',
    params: nameParams,
    response: { 202: oneShape, ...errors, 409: conflict, 503: errorResponses.standard },
    preHandler: auth(PROJECTION_REBUILD_PERMISSION),
    handler: async (request, reply) => {
      const caller = request.caller;
      if (caller == null) throw new Error('projections route reached without a caller');
      const { name } = request.params;
      let rebuild: RebuildRequest | null;
      try {
        rebuild = await admin.requestRebuild({
          projection: name,
          requestedBy: requesterOf(caller),
          onRequested: (tx, requested) => auditRequest(tx, caller, requested),
        });
      } catch (err) {
        const code = (err as { code?: unknown } | null)?.code;
        if (code === 'REBUILD_IN_PROGRESS') {
          const rebuildId = (err as { rebuildId: string }).rebuildId;
          throw new ParleyError(
            'REBUILD_IN_PROGRESS',
            409,
            `A rebuild of ${name} is already queued or running`,
            {
              details: { rebuildId },
              exposeDetails: true,
            },
          );
        }
        // The error handler logs the cause; the answer hides it (5xx).
        if (code === 'QUEUE_UNAVAILABLE')
          throw new HttpError('QUEUE_UNAVAILABLE', 503, 'Rebuilds cannot be queued: no worker has run yet', {
            cause: err,
          });
        throw err;
      }
      if (rebuild === null) throw projectionNotFound(name);
      request.log.info(
        { component: 'projections', projection: name, rebuildId: rebuild.id },
        'rebuild requested',
      );
      reply.status(202).header('cache-control', 'no-store');
      return { success: true as const, rebuild: toRebuildBody(rebuild) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: '/api/v1/projections/:name/rebuilds/:rebuildId',
    summary: 'One rebuild of a projection: state and progress',
    description:
      'Progress is written by the worker at most every 500 ms while it runs. Permission projection:read.',
    operationId: 'getProjectionRebuild',
    params: rebuildParams,
    response: { 200: oneShape, ...errors },
    preHandler: auth(PROJECTION_READ_PERMISSION),
    handler: async (request, reply) => {
      const { name, rebuildId } = request.params;
      if (!admin.has(name)) throw projectionNotFound(name);
      const rebuild = await admin.rebuild(name, rebuildId);
      if (rebuild === null) throw new HttpError('REBUILD_NOT_FOUND', 404, 'Rebuild not found');
      reply.header('cache-control', 'no-store');
      return { success: true as const, rebuild: toRebuildBody(rebuild) };
    },
  });
};
