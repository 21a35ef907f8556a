import { auditStream, toAppend } from '@parley/events';
import { formatPosition, type LogTransaction } from '@parley/eventstore';
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
import {
  type ProjectionsAdmin,
  RebuildInProgressError,
  RebuildQueueMissingError,
  type RebuildRequest,
  type RebuildRequester,
} from '@parley/projection-runner';
import type { FastifyPluginAsync } from 'fastify';
import { toProjectionBody, toRebuildBody } from './projections/projectionBodies.js';
import { conflict, listShape, nameParams, oneShape, rebuildParams } from './projections/projectionSchemas.js';

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

const errors = {
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  429: errorResponses.rateLimited,
};

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
        principal: requesterOf(caller),
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
        if (err instanceof RebuildInProgressError) {
          throw new ParleyError(
            'REBUILD_IN_PROGRESS',
            409,
            `A rebuild of ${name} is already queued or running`,
            { details: { rebuildId: err.rebuildId }, exposeDetails: true },
          );
        }
        // The error handler logs the cause; the answer hides it (5xx).
        if (err instanceof RebuildQueueMissingError)
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
