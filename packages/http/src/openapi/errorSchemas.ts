import type { ApiFamily } from '../errors/toErrorReply.js';
import type { JsonSchema } from './jsonSchemaOf.js';

/** The envelopes of spec 000 §7 as shared schemas: components of /openapi.json, referenced by routes. */
export const errorSchemas: ReadonlyArray<JsonSchema & { $id: string }> = [
  {
    $id: 'StandardError',
    type: 'object',
    description: 'Standard error envelope',
    required: ['success', 'error'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
      required: { type: 'string', description: 'On 403 PERMISSION_REQUIRED: the missing permission' },
      retryAfterMs: {
        type: 'integer',
        description: 'On 429 of the recordings API, and on 429 QUEUE_FULL (the execution queue is full)',
      },
    },
  },
  {
    $id: 'AuthenticationError',
    type: 'object',
    description: 'Authentication failure (401): missing, invalid, expired or revoked credential',
    required: ['error'],
    properties: { error: { type: 'string' }, requestId: { type: 'string' } },
  },
  {
    $id: 'AnalyticsError',
    type: 'object',
    description: 'Error of the analytics APIs',
    required: ['success', 'error', 'message', 'required'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        required: ['code', 'message', 'details'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
        },
      },
      message: { type: 'string' },
      required: { type: 'string', description: 'What the request needed; empty when nothing specific' },
    },
  },
  {
    $id: 'RateLimitedError',
    type: 'object',
    description: 'Rate-limited body (429) of the platform APIs',
    required: ['error', 'retryAfterMs'],
    properties: { error: { type: 'string' }, retryAfterMs: { type: 'integer', minimum: 0 } },
  },
];

/** Response schemas referencing the shared envelopes, for `addRoute({ response: { 401: errorResponses.authentication } })`. */
export const errorResponses = {
  standard: { $ref: 'StandardError#', description: 'Error' },
  authentication: { $ref: 'AuthenticationError#', description: 'Authentication failure' },
  analytics: { $ref: 'AnalyticsError#', description: 'Error' },
  rateLimited: { $ref: 'RateLimitedError#', description: 'Rate limit exceeded' },
  /** Routes that run agent turns: a rate limit, or 429 QUEUE_FULL in the standard envelope with retryAfterMs. */
  rateLimitedOrQueueFull: {
    anyOf: [{ $ref: 'RateLimitedError#' }, { $ref: 'StandardError#' }],
    description: 'Rate limit exceeded, or QUEUE_FULL (the execution queue is full: retry after retryAfterMs)',
  },
} as const satisfies Record<string, JsonSchema>;

/**
 * The 503 every route may answer while a dependency it needs (PostgreSQL, Redis) is down: the
 * family's envelope with code SERVICE_UNAVAILABLE and a Retry-After header (seconds).
 */
export function unavailableResponse(family: ApiFamily): JsonSchema {
  const description =
    'Service unavailable: a dependency is down (code SERVICE_UNAVAILABLE); retry after the Retry-After header (seconds)';
  return { $ref: family === 'analytics' ? 'AnalyticsError#' : 'StandardError#', description };
}
