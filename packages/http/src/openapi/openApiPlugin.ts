import swagger from '@fastify/swagger';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { errorSchemas } from './errorSchemas.js';

export interface OpenApiOptions {
  title: string;
  version: string;
  description?: string;
}

/**
 * The API's OpenAPI 3.1 document, built by @fastify/swagger from the routes'
 * schemas and served at `GET /openapi.json`. Register it before the routes:
 * swagger only sees routes added after it.
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
};

export const openApiPlugin = fp(plugin, { name: '@parley/http/openapi', fastify: '5.x' });
