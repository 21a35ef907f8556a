import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
  preHandlerAsyncHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import type { z } from 'zod';
import type { ApiFamily } from '../errors/toErrorReply.js';
import { unavailableResponse } from './errorSchemas.js';
import { type JsonSchema, jsonSchemaOf } from './jsonSchemaOf.js';
import { refuseUnstorableText, type UnstorableBodyPolicy } from './refuseUnstorableText.js';

type Part = z.ZodType | undefined;
type Out<T extends Part> = T extends z.ZodType ? z.output<T> : unknown;

export interface RouteShapes<P extends Part, Q extends Part, H extends Part, B extends Part> {
  params?: P;
  querystring?: Q;
  headers?: H;
  body?: B;
  /**
   * Per status: a zod schema or a JSON schema (documented as application/json), a shared one
   * (`errorResponses.standard`, …), or mediaResponse(…) for other media types.
   */
  response: Record<number, z.ZodType | JsonSchema>;
}

export interface RouteDefinition<P extends Part, Q extends Part, H extends Part, B extends Part>
  extends RouteShapes<P, Q, H, B> {
  method: HTTPMethods;
  url: string;
  summary: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  /** The body's media types, for the document; default application/json. */
  consumes?: string[];
  /** OpenAPI security requirements, e.g. `[{ apiKey: [] }]` (schemes of openApiPlugin). */
  security?: Array<Record<string, string[]>>;
  /**
   * `validate` (default): zod parses params, query, headers and body; a
   * failure is 400 VALIDATION_ERROR and the handler gets zod's output.
   * `document`: the shapes are only documented and the handler parses them,
   * for routes whose spec wants its own 400 codes (the analytics APIs).
   */
  validation?: 'validate' | 'document';
  apiFamily?: ApiFamily;
  /**
   * Text PostgreSQL cannot store in the body: refused with 400 VALIDATION_ERROR (default), or left
   * to the handler (see UnstorableBodyPolicy). Params and query are always refused.
   */
  unstorableBody?: UnstorableBodyPolicy;
  /** Request body limit of this route in bytes; default the app's (spec 000 §8: 1 MB standard). */
  bodyLimit?: number;
  preHandler?: preHandlerAsyncHookHandler | preHandlerAsyncHookHandler[];
  handler: (
    request: FastifyRequest<{ Params: Out<P>; Querystring: Out<Q>; Headers: Out<H>; Body: Out<B> }>,
    reply: FastifyReply,
  ) => unknown;
}

/**
 * Declares a route's shapes once: zod (or JSON) schemas that Fastify
 * validates with and @fastify/swagger puts in /openapi.json. Replies are
 * serialised with JSON.stringify: response schemas document, they do not
 * filter fields.
 */
export function addRoute<P extends Part, Q extends Part, H extends Part, B extends Part>(
  app: FastifyInstance,
  definition: RouteDefinition<P, Q, H, B>,
): void {
  const parts: Record<string, z.ZodType | undefined> = {
    params: definition.params,
    querystring: definition.querystring,
    headers: definition.headers,
    body: definition.body,
  };
  const family = definition.apiFamily ?? 'platform';
  // Any route can meet a dependency outage (503 SERVICE_UNAVAILABLE with Retry-After): documented
  // on every route that does not document a 503 of its own.
  const responses = { 503: unavailableResponse(family), ...definition.response };
  const schema: FastifySchema & Record<string, unknown> = {
    summary: definition.summary,
    response: Object.fromEntries(
      Object.entries(responses).map(([status, shape]) => [status, responseSchema(status, shape)]),
    ),
  };
  if (definition.description !== undefined) schema.description = definition.description;
  if (definition.tags !== undefined) schema.tags = definition.tags;
  if (definition.operationId !== undefined) schema.operationId = definition.operationId;
  if (definition.security !== undefined) schema.security = definition.security;
  if (definition.consumes !== undefined) schema.consumes = definition.consumes;
  for (const [part, shape] of Object.entries(parts)) {
    if (shape !== undefined) schema[part] = jsonSchemaOf(shape, 'input');
  }
  const validate = (definition.validation ?? 'validate') === 'validate';

  app.route({
    method: definition.method,
    url: definition.url,
    schema,
    config: { apiFamily: family },
    ...(definition.bodyLimit === undefined ? {} : { bodyLimit: definition.bodyLimit }),
    // Authentication and permission checks run before schema validation: a caller without a valid
    // credential learns nothing about the route's schema (401/403/404 before 400). Then text that
    // PostgreSQL cannot store is refused, naming its field, whatever the route's schema says.
    preValidation: [
      ...[definition.preHandler ?? []].flat(),
      refuseUnstorableText(definition.unstorableBody ?? 'refuse'),
    ] as unknown as preValidationAsyncHookHandler[],
    validatorCompiler: ({ httpPart }) => {
      const shape = httpPart === undefined ? undefined : parts[httpPart];
      if (!validate || shape === undefined) return () => true;
      return (data: unknown) => {
        const parsed = shape.safeParse(data);
        return parsed.success ? { value: parsed.data } : { error: parsed.error };
      };
    },
    serializerCompiler: () => (data: unknown) => JSON.stringify(data),
    handler: definition.handler as (request: FastifyRequest, reply: FastifyReply) => unknown,
  });
}

function responseSchema(status: string, shape: z.ZodType | JsonSchema): JsonSchema {
  const json = jsonSchemaOf(shape, 'output');
  // A shared envelope, or a response with its own media types (mediaResponse): as given.
  if ('$ref' in json || 'content' in json) return json;
  return {
    description: typeof json.description === 'string' ? json.description : describeStatus(status),
    ...json,
  };
}

function describeStatus(status: string): string {
  return status.startsWith('2') ? 'Success' : 'Error';
}
