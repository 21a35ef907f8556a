import { AUTH_MODES, CHANNEL_MANIFEST, DELIVERY_KINDS, INGRESS_KINDS, manifestEntry } from '@parley/channels';
import { addRoute, errorResponses, HttpError } from '@parley/http';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';

const entrySchema = z.object({
  channelType: z.string(),
  displayName: z.string(),
  category: z.enum(['chat', 'messaging', 'contact_center', 'voice', 'sdk', 'protocol']),
  ingress: z.enum(INGRESS_KINDS),
  delivery: z.enum(DELIVERY_KINDS),
  authMode: z.enum(AUTH_MODES),
  responseFormat: z.string(),
  supportsRichOutput: z.boolean(),
  supportsThreading: z.boolean(),
  supportsMedia: z.boolean(),
  supportsStreaming: z.boolean(),
  isConnectionEligible: z.boolean(),
  isVoice: z.boolean(),
  supportsTypingIndicator: z.boolean(),
  requiredCredentials: z.array(z.string()),
  optionalCredentials: z.array(z.string()),
  webhookPathPattern: z.string(),
  capabilities: z.object({
    supportsAsync: z.boolean(),
    supportsStreaming: z.boolean(),
    supportsMedia: z.boolean(),
    supportsThreading: z.boolean(),
  }),
  providers: z
    .array(
      z.object({
        provider: z.string(),
        displayName: z.string(),
        authMode: z.enum(AUTH_MODES),
        requiredCredentials: z.array(z.string()),
        optionalCredentials: z.array(z.string()),
        webhookPathPattern: z.string(),
        default: z.boolean().describe('The provider of a connection that names none'),
      }),
    )
    .describe(
      'Provider variants of the channel type (spec 001 §4.1 provider route); empty when it has one implementation',
    ),
});

/**
 * The channel manifest (spec 001 §2.2): `GET /api/v1/channels/manifest` and
 * `GET /api/v1/channels/manifest/{channelType}` (docs/channels.md). Public: it is the same static
 * table for every caller and holds nothing of a tenant.
 */
export const channelManifestRoutes: FastifyPluginAsync = async (app) => {
  addRoute(app, {
    method: 'GET',
    url: '/api/v1/channels/manifest',
    summary: 'Every channel type with its manifest entry and capabilities',
    tags: ['channels'],
    operationId: 'listChannelManifest',
    response: { 200: z.object({ success: z.literal(true), channels: z.array(entrySchema) }) },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { success: true as const, channels: [...CHANNEL_MANIFEST] };
    },
  });

  addRoute(app, {
    method: 'GET',
    url: '/api/v1/channels/manifest/:channelType',
    summary: 'The manifest entry of one channel type',
    tags: ['channels'],
    operationId: 'getChannelManifestEntry',
    params: z.object({ channelType: z.string().min(1).max(64) }),
    response: {
      200: z.object({ success: z.literal(true), channel: entrySchema }),
      404: errorResponses.standard,
    },
    handler: async (request, reply) => {
      const entry = manifestEntry(request.params.channelType);
      if (entry === undefined) {
        throw new HttpError(
          'UNKNOWN_CHANNEL_TYPE',
          404,
          `unknown channel type: ${request.params.channelType}`,
        );
      }
      reply.header('cache-control', 'public, max-age=300');
      return { success: true as const, channel: entry };
    },
  });
};
