import { z } from 'zod';

/** The shapes of the projections admin routes for /openapi.json (the field lists: docs/api.md). */

const iso = z.string().describe('ISO 8601');
const position = z.string().describe('A log position `commit/prepare` (decimal, may exceed 2^53)');

export const rebuildShape = z.object({
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

export const generationShape = z.object({
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

export const projectionShape = z.object({
  name: z.string(),
  state: z.enum(['ok', 'building', 'failed', 'rebuild_required', 'unregistered']),
  codeVersion: z.number().int(),
  liveGeneration: z.number().int().nullable(),
  liveVersion: z.number().int().nullable(),
  versionMismatch: z.boolean(),
  generations: z.array(generationShape).describe('Live and building generations (retired ones left out)'),
  rebuild: rebuildShape.nullable().describe('The latest rebuild requested through the API'),
});

export const listShape = z.object({
  success: z.literal(true),
  head: z.object({ position: position.nullable(), recordedAt: iso.nullable() }),
  projections: z.array(projectionShape),
});
export const oneShape = z.object({ success: z.literal(true), rebuild: rebuildShape });

export const nameParams = z.object({ name: z.string().min(1).max(256) });
export const rebuildParams = nameParams.extend({ rebuildId: z.string().min(1).max(256) });

export const conflict = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.literal('REBUILD_IN_PROGRESS'),
      message: z.string(),
      details: z.object({ rebuildId: z.string() }),
    }),
  })
  .describe('A rebuild of this projection is queued or running: `error.details.rebuildId`');
