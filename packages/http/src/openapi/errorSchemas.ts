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
      retryAfterMs: { type: 'integer', description: 'On 429 of the recordings API' },
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
} as const satisfies Record<string, JsonSchema>;
