import swagger from '@fastify/swagger';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { MAX_PARAM_LENGTH } from '../errors/frameworkErrors.js';
import { type ApiDescriptionOptions, apiDescription } from './apiDescription.js';
import { errorSchemas } from './errorSchemas.js';

export interface OpenApiOptions {
  title: string;
  version: string;
  description?: string;
  /**
   * Public APIs with a description of their own, each served at `/openapi/<name>.json` beside the
   * whole document, with its own version (spec 000 §9).
   */
  apis?: readonly ApiDescriptionOptions[];
}

/**
 * The API's OpenAPI 3.1 document, built by @fastify/swagger from the routes'
 * schemas and served at `GET /openapi.json`, and each of `options.apis` at
 * `GET /openapi/<name>.json` (its tagged operations only). Register it before
 * the routes: swagger only sees routes added after it.
 */
const plugin: FastifyPluginAsync<OpenApiOptions> = async (app, options) => {
  for (const schema of errorSchemas) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: options.version,
        ...(options.description === undefined ? {} : { description: options.description }),
      },
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: 'Platform API key (plat_…)',
          },
          bearer: { type: 'http', scheme: 'bearer', description: 'Platform API key (plat_…), not a JWT' },
          userJwt: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              "A user's JWT (claims sub, tenant_id, project_ids, scope), where requireCaller takes it",
          },
          sdkToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-SDK-Token',
            description: 'A short-lived SDK session token (JWT, typ sdk), on the conversation endpoints only',
          },
          publicKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'A public widget key (pk_…), origin-restricted: GET /api/v1/sdk/config only',
          },
          publicKeyInit: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Public-Key',
            description: 'A public widget key (pk_…), origin-restricted: POST /api/v1/sdk/init only',
          },
        },
      },
    },
    transformObject: (documentObject) =>
      withServerAnswers((documentObject as { openapiObject: OpenApiDocument }).openapiObject),
    // Shared schemas keep their $id as the component name (StandardError, …).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This OpenAPI document',
        tags: ['meta'],
        response: {
          200: { description: 'OpenAPI 3.1 document', type: 'object', additionalProperties: true },
        },
      },
    },
    async () => app.swagger(),
  );

  for (const api of options.apis ?? []) {
    app.get(
      `/openapi/${api.name}.json`,
      {
        schema: {
          summary: `The OpenAPI description of the ${api.title} (version ${api.version})`,
          tags: ['meta'],
          response: {
            200: { description: 'OpenAPI 3.1 document', type: 'object', additionalProperties: true },
          },
        },
      },
      async () => apiDescription(app.swagger() as unknown as Record<string, unknown>, api),
    );
  }
};

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

const errorIn = (schema: 'StandardError' | 'AnalyticsError') => (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});
const standardError = errorIn('StandardError');

/**
 * Answers every operation can give before its handler runs, added where not documented already: 431
 * for headers over 16 KiB (the HTTP server's, standard envelope); 400 for a URL whose
 * percent-encoding is not UTF-8 or a path or query value holding text PostgreSQL cannot store
 * (refuseUnstorableText: every query value counts, declared or not); for paths with parameters,
 * 414 for one over MAX_PARAM_LENGTH. In the analytics envelope on the analytics APIs.
 */
function withServerAnswers<T extends OpenApiDocument>(document: T): T {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    const error = errorIn(path.startsWith('/api/public/analytics/') ? 'AnalyticsError' : 'StandardError');
    for (const operation of Object.values(operations)) {
      const responses = operation.responses ?? {};
      operation.responses = responses;
      responses['431'] ??= standardError('REQUEST_HEADER_FIELDS_TOO_LARGE: request headers over 16 KiB');
      responses['400'] ??= error(
        'BAD_REQUEST: the URL’s percent-encoding is not UTF-8; VALIDATION_ERROR: a path or query value holds text PostgreSQL cannot store',
      );
      if (path.includes('{')) {
        responses['414'] ??= error(`URI_TOO_LONG: a path parameter over ${MAX_PARAM_LENGTH} characters`);
      }
    }
  }
  return document;
}

export const openApiPlugin = fp(plugin, { name: '@parley/http/openapi', fastify: '5.x' });
