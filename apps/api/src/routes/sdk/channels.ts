import {
  SDK_CHANNEL_TOKEN_KINDS,
  SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS,
  SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS,
  SDK_CHANNEL_TYPES,
  SDK_ENVIRONMENTS,
  type SdkChannel,
  type SdkChannelStore,
  type SdkChannelTokens,
  sdkChannelInputSchema,
  sdkChannelPageSchema,
  sdkChannelPatchSchema,
  widgetConfigSchema,
} from '@parley/channels';
import { addRoute, errorResponses, HttpError, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { projectResourceRoutes } from '../projectResources.js';

export interface SdkChannelsRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  channels: SdkChannelStore;
  /** Null when SDK_TOKEN_SECRET is not configured: the token action answers 503 SDK_NOT_CONFIGURED. */
  tokens: SdkChannelTokens | null;
  /** PUBLIC_BASE_URL, for the token's `url`; unset: the request's own protocol and host. */
  publicBaseUrl?: string | undefined;
}

const channelBody = z.object({
  id: z.string(),
  tenantId: z.string(),
  projectId: z.string(),
  name: z.string(),
  channelType: z.enum(SDK_CHANNEL_TYPES),
  deploymentId: z.string().nullable(),
  publicApiKeyId: z.string(),
  config: widgetConfigSchema,
  isActive: z.boolean(),
  environment: z.enum(SDK_ENVIRONMENTS),
  followEnvironment: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
type ChannelBody = z.infer<typeof channelBody>;

const toBody = (c: SdkChannel): ChannelBody => ({
  ...c,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

const projectParams = z.object({ projectId: z.string().min(1).max(256) });
const channelParams = projectParams.extend({ channelId: z.string().min(1).max(64) });
const one = z.object({ success: z.literal(true), channel: channelBody });
const many = z.object({
  success: z.literal(true),
  channels: z.array(channelBody),
  pagination: z.object({ total: z.int(), limit: z.int(), offset: z.int() }),
});

const tokenRequest = z.strictObject({
  kind: z.enum(SDK_CHANNEL_TOKEN_KINDS).default('embed'),
  expiresInSeconds: z
    .int()
    .min(SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS)
    .max(SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS)
    .optional()
    .describe('Default 604800 (7 days) for share, 2592000 (30 days) for embed'),
});
const tokenResponse = z.object({
  success: z.literal(true),
  token: z.string().describe('HS256 JWT (header typ sdk-channel+jwt); not an SDK session token'),
  kind: z.enum(SDK_CHANNEL_TOKEN_KINDS),
  channelId: z.string(),
  expiresAt: z.string(),
  url: z.string().describe('share: the hosted chat page; embed: the widget frame for an <iframe src>'),
});

/** Where the widget page (issue 8) takes the tokens. */
const TOKEN_PATHS = { share: '/sdk/share', embed: '/sdk/embed' } as const;

const notFound = (id: string) => new HttpError('SDK_CHANNEL_NOT_FOUND', 404, `SDK channel not found: ${id}`);

/**
 * SDK channels (spec 001 §4.6): `/api/projects/{projectId}/sdk-channels`, with a platform API key of
 * the project or a user JWT. Permissions `channel:read` (list, show), `channel:create` (create, and
 * the share/embed token), `channel:update`, `channel:delete`; scopes `sdk_channels.read` and
 * `sdk_channels.write`.
 */
export const sdkChannelsRoutes: FastifyPluginAsync<SdkChannelsRouteOptions> = async (app, options) => {
  const { auth, security, errors } = projectResourceRoutes(options);
  const { channels } = options;
  const common = { tags: ['sdk'], security };
  const base = '/api/projects/:projectId/sdk-channels';

  addRoute(app, {
    ...common,
    method: 'GET',
    url: base,
    summary: "List a project's SDK channels (oldest first)",
    operationId: 'listSdkChannels',
    params: projectParams,
    querystring: sdkChannelPageSchema,
    response: { 200: many, ...errors },
    preHandler: auth('channel:read'),
    handler: async (request, reply) => {
      const { limit, offset } = request.query;
      const page = await channels.list(request.params.projectId, { limit, offset });
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        channels: page.channels.map(toBody),
        pagination: { total: page.total, limit, offset },
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: base,
    summary: 'Create an SDK channel',
    description:
      '`publicApiKeyId` must be an active public key (`parley keys create-public`) of this project: else 400. ' +
      '`config` is the widget configuration (mode, position, theme, welcomeMessage, placeholderText, voiceEnabled, ' +
      'chatEnabled), every field optional; unknown keys are refused.',
    operationId: 'createSdkChannel',
    params: projectParams,
    body: sdkChannelInputSchema,
    response: { 201: one, ...errors },
    preHandler: auth('channel:create'),
    handler: async (request, reply) => {
      const channel = await channels.create(request.params.projectId, request.body);
      reply.status(201).header('cache-control', 'no-store');
      return { success: true as const, channel: toBody(channel) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${base}/:channelId`,
    summary: 'Show one SDK channel',
    operationId: 'getSdkChannel',
    params: channelParams,
    response: { 200: one, ...errors },
    preHandler: auth('channel:read'),
    handler: async (request, reply) => {
      const channel = await channels.get(request.params.projectId, request.params.channelId);
      if (channel === null) throw notFound(request.params.channelId);
      reply.header('cache-control', 'no-store');
      return { success: true as const, channel: toBody(channel) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'PATCH',
    url: `${base}/:channelId`,
    summary: 'Change an SDK channel',
    description:
      'Only the fields given change; `channelType` is fixed. `config` replaces the whole widget configuration. ' +
      '`deploymentId: null` clears it. A new `publicApiKeyId` is checked like on create.',
    operationId: 'updateSdkChannel',
    params: channelParams,
    body: sdkChannelPatchSchema,
    response: { 200: one, ...errors },
    preHandler: auth('channel:update'),
    handler: async (request, reply) => {
      const channel = await channels.update(request.params.projectId, request.params.channelId, request.body);
      reply.header('cache-control', 'no-store');
      return { success: true as const, channel: toBody(channel) };
    },
  });

  addRoute(app, {
    ...common,
    method: 'DELETE',
    url: `${base}/:channelId`,
    summary: 'Delete an SDK channel (its share and embed tokens stop working)',
    operationId: 'deleteSdkChannel',
    params: channelParams,
    response: { 204: z.null().describe('Deleted'), ...errors },
    preHandler: auth('channel:delete'),
    handler: async (request, reply) => {
      const deleted = await channels.delete(request.params.projectId, request.params.channelId);
      if (!deleted) throw notFound(request.params.channelId);
      reply.status(204);
      return null;
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: `${base}/:channelId/token`,
    summary: 'Create a share or embed token for an SDK channel',
    description:
      'Body (optional): `kind` share or embed (default embed), `expiresInSeconds` 60..31536000. The token is an ' +
      'HS256 JWT under SDK_TOKEN_SECRET naming the channel; it is valid while the channel exists and is active. ' +
      '503 SDK_NOT_CONFIGURED without SDK_TOKEN_SECRET.',
    operationId: 'createSdkChannelToken',
    params: channelParams,
    // Fastify hands a bodiless POST over as null.
    body: tokenRequest.nullish(),
    response: { 201: tokenResponse, ...errors, 503: errorResponses.standard },
    preHandler: auth('channel:create'),
    handler: async (request, reply) => {
      if (options.tokens === null) {
        throw new HttpError('SDK_NOT_CONFIGURED', 503, 'SDK tokens need SDK_TOKEN_SECRET');
      }
      const channel = await channels.get(request.params.projectId, request.params.channelId);
      if (channel === null) throw notFound(request.params.channelId);
      const { kind, expiresInSeconds } = tokenRequest.parse(request.body ?? {});
      const issued = await options.tokens.issue(
        { kind, tenantId: channel.tenantId, projectId: channel.projectId, channelId: channel.id },
        expiresInSeconds,
      );
      const origin = (options.publicBaseUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
      reply.status(201).header('cache-control', 'no-store');
      return {
        success: true as const,
        token: issued.token,
        kind,
        channelId: channel.id,
        expiresAt: issued.expiresAt.toISOString(),
        url: `${origin}${TOKEN_PATHS[kind]}?token=${encodeURIComponent(issued.token)}`,
      };
    },
  });
};
