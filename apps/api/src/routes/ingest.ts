import { addRoute, errorResponses, requireApiKey, type VerifyApiKey } from '@parley/http';
import { type IngestResponse, ingestRequestSchema } from '@parley/ingest';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';

export interface IngestRouteOptions {
  verify: VerifyApiKey;
  ingest(scope: { tenantId: string; projectId: string }, items: readonly unknown[]): Promise<IngestResponse>;
}

/** Ingest batches carry many facts at once: above the standard 1 MB, below the 60 MB of imports (spec 000 §8). */
export const INGEST_BODY_LIMIT = 10 * 1024 * 1024;

const itemError = z.object({
  code: z.enum(['VALIDATION_ERROR', 'DUPLICATE_ITEM_ID', 'EVENT_ID_CONFLICT', 'ID_IN_USE']),
  message: z.string(),
  details: z.object({ issues: z.array(z.object({ path: z.string(), message: z.string() })) }),
});

const ingestReply = z.object({
  success: z.literal(true),
  data: z.object({
    accepted: z.int().min(0),
    rejected: z.int().min(0),
    results: z.array(
      z.union([
        z.object({
          index: z.int().min(0),
          id: z.string(),
          status: z.literal('accepted'),
          eventId: z.uuid(),
          stream: z.string(),
        }),
        z.object({
          index: z.int().min(0),
          id: z.string().nullable(),
          status: z.literal('rejected'),
          error: itemError,
        }),
      ]),
    ),
  }),
});

/**
 * POST /api/v1/ingest: other platform components submit sessions' facts.
 * Each item is validated and appended on its own terms (200 when all were
 * accepted, 207 when some were rejected; see packages/ingest/README.md).
 */
export const ingestRoutes: FastifyPluginAsync<IngestRouteOptions> = async (app, options) => {
  addRoute(app, {
    method: 'POST',
    url: '/api/v1/ingest',
    summary: "Submit sessions' facts (sessions, messages, trace events, LLM calls) in a batch",
    description:
      'Needs a platform API key with the `ingest.write` scope. Items are idempotent by their `id` within the project.',
    tags: ['ingest'],
    operationId: 'ingest',
    security: [{ apiKey: [] }, { bearer: [] }],
    bodyLimit: INGEST_BODY_LIMIT,
    body: ingestRequestSchema,
    // One item with text PostgreSQL cannot store is rejected alone (prepareItems): 207, the rest appended.
    unstorableBody: 'handler',
    response: {
      200: ingestReply.describe('Every item was accepted'),
      207: ingestReply.describe('Some items were rejected; see each result'),
      400: errorResponses.standard,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      413: errorResponses.standard,
      429: errorResponses.rateLimited,
    },
    preHandler: requireApiKey({
      verify: options.verify,
      permission: 'ingest:write',
      projectParam: null,
      allowBearer: true,
    }),
    handler: async (request, reply) => {
      const principal = request.principal!;
      const result = await options.ingest(
        { tenantId: principal.tenantId, projectId: principal.projectId },
        request.body.items,
      );
      reply.status(result.rejected === 0 ? 200 : 207);
      return { success: true, data: result };
    },
  });
};
