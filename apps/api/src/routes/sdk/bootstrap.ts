import { randomUUID } from 'node:crypto';
import type { ResolvedPublicKey } from '@parley/auth';
import { addRoute, authenticationFailed, errorResponses, HttpError, type SdkTokens } from '@parley/http';
import { isStorableText } from '@parley/platform';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { z } from 'zod';
import { allowOrigin, answerPreflight, originNotAllowed, originOf, requestOrigin } from './cors.js';
import { resolvedWidgetConfigSchema, resolveWidgetConfig, type SdkChannelLookup } from './widgetConfig.js';

export interface SdkBootstrapRouteOptions {
  /** The auth store's public key lookups (`createAuthStore(pool)` has both). */
  publicKeys: {
    resolvePublicKey(key: string): Promise<ResolvedPublicKey | null>;
    isPublicOriginListed(origin: string, projectId?: string): Promise<boolean>;
  };
  channels: SdkChannelLookup;
  /** Null when SDK_TOKEN_SECRET is not configured: init answers 503 SDK_NOT_CONFIGURED. */
  sdkTokens: SdkTokens | null;
  /** Test clock, for `expiresIn`. */
  now?: () => Date;
}

const PUBLIC_KEY_MESSAGE = 'Missing or invalid public key';

/**
 * The conversation endpoints a widget calls with its SDK token: their preflights are answered here,
 * where the public keys are (requireCaller adds the CORS headers of the token's origin to the answers).
 */
export const SDK_TOKEN_CORS_PATHS = [
  '/api/v1/chat/send',
  '/api/v1/chat/agent',
  '/api/v1/chat/stream',
  '/api/v1/sessions/:sessionId/end',
  '/api/v1/ag-ui/run',
] as const;

const projectId = z.string().min(1).max(128);
const configParams = z.object({ projectId });
const initBody = z.strictObject({
  projectId,
  userId: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .regex(/^[^\p{Cc}]+$/u, 'no control characters')
    .optional()
    .describe('The end user (your id for them); absent: a new anonymous id (`anon_…`)'),
  channelId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('An active SDK channel of the project bound to this key'),
});

// `success` is always present (spec 000 §7); the resource's fields (spec 001 §2.5) stay beside it.
const configReply = z.object({
  success: z.literal(true),
  projectId: z.string(),
  permissions: z.object({ chat: z.boolean(), voice: z.boolean() }),
  config: resolvedWidgetConfigSchema,
});
const initReply = z.object({
  success: z.literal(true),
  token: z.string().describe('Send as `X-SDK-Token` to the conversation endpoints'),
  tokenType: z.literal('sdk'),
  expiresAt: z.string(),
  expiresIn: z.int().describe('Seconds until expiresAt'),
  sessionUserId: z.string().describe('The end user the token speaks for (`userId`, or the anonymous id)'),
  projectId: z.string(),
});

const errors = {
  400: errorResponses.standard,
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  429: errorResponses.rateLimited,
} as const;

/** A project that is not the key's is "not accessible": 404, as every cross-tenant access (spec 000 §7). */
const projectNotAllowed = () => new HttpError('PROJECT_NOT_FOUND', 404, 'Project not found');

function badRequest(error: z.ZodError): HttpError {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return new HttpError('VALIDATION_ERROR', 400, `${where}${issue?.message ?? 'invalid request'}`);
}

/**
 * The public key of the request (in `header`), checked against the request's
 * Origin: 401 when missing, unknown or revoked; 403 ORIGIN_NOT_ALLOWED when
 * the Origin is missing or not one of the key's allowed origins (a browser's
 * same-origin GET has no Origin: requestOrigin stands in the API's own). Then the CORS
 * headers for that origin, so the page can read every later answer (errors
 * included); and `request.principal`, so the tenant rate limit counts it.
 */
async function publicKeyOf(
  request: FastifyRequest,
  reply: FastifyReply,
  header: 'x-api-key' | 'x-public-key',
  options: SdkBootstrapRouteOptions,
): Promise<ResolvedPublicKey & { origin: string }> {
  reply.header('vary', 'Origin');
  const raw = request.headers[header];
  const key = typeof raw === 'string' ? await options.publicKeys.resolvePublicKey(raw.trim()) : null;
  if (key === null) throw authenticationFailed(PUBLIC_KEY_MESSAGE);
  const origin = requestOrigin(request);
  if (origin === undefined || !key.allowedOrigins.includes(origin)) {
    request.log.info({ publicKeyId: key.id, origin }, 'SDK request from an origin the key does not list');
    throw originNotAllowed();
  }
  allowOrigin(reply, origin);
  request.principal = {
    keyId: key.id,
    tenantId: key.tenantId,
    projectId: key.projectId,
    scopes: [],
    permissions: [],
  };
  return { ...key, origin };
}

/**
 * Widget configuration and SDK bootstrap (spec 001 §4.7, spec 000 §5): `GET
 * /api/v1/sdk/config/{projectId}` with `X-API-Key: pk_…` and `POST
 * /api/v1/sdk/init` with `X-Public-Key: pk_…`, plus their CORS preflights and those of the
 * conversation endpoints a widget calls with its SDK token (SDK_TOKEN_CORS_PATHS).
 * Every request must come from one of the key's allowed origins.
 */
export const sdkBootstrapRoutes: FastifyPluginAsync<SdkBootstrapRouteOptions> = async (app, options) => {
  const now = options.now ?? (() => new Date());
  const common = { tags: ['sdk'], validation: 'document' as const };
  // The key is checked in a preHandler, before the tenant rate limit's (which needs request.principal).
  const keys = new WeakMap<FastifyRequest, ResolvedPublicKey & { origin: string }>();
  const requirePublicKey =
    (header: 'x-api-key' | 'x-public-key'): preHandlerAsyncHookHandler =>
    async (request, reply) => {
      keys.set(request, await publicKeyOf(request, reply, header, options));
    };
  const keyOf = (request: FastifyRequest) => keys.get(request)!;

  addRoute(app, {
    ...common,
    method: 'GET',
    url: '/api/v1/sdk/config/:projectId',
    summary: 'Widget configuration of a project (spec 001 §2.5)',
    description:
      'Authenticated by a public widget key in `X-API-Key`, from one of its allowed origins. The config is ' +
      "that of the project's active `web` SDK channel bound to this key, merged over the defaults; " +
      '`chatEnabled` and `voiceEnabled` never exceed the key permissions.',
    operationId: 'getSdkConfig',
    security: [{ publicKey: [] }],
    params: configParams,
    response: { 200: configReply, ...errors },
    preHandler: requirePublicKey('x-api-key'),
    handler: async (request, reply) => {
      const key = keyOf(request);
      const params = configParams.safeParse(request.params);
      if (!params.success) throw badRequest(params.error);
      if (params.data.projectId !== key.projectId) throw projectNotAllowed();
      const stored = await options.channels.webConfig(key.projectId, key.id);
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        projectId: key.projectId,
        permissions: key.permissions,
        config: resolveWidgetConfig(stored, key.permissions),
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: '/api/v1/sdk/init',
    summary: 'Start an SDK session: a short-lived SDK session token',
    description:
      'Authenticated by a public widget key in `X-Public-Key`, from one of its allowed origins. The token ' +
      '(HS256 JWT, SDK_TOKEN_SECRET, 15 minutes) reaches only this project and this end user, and only from ' +
      'this Origin. 503 SDK_NOT_CONFIGURED without SDK_TOKEN_SECRET.',
    operationId: 'initSdkSession',
    security: [{ publicKeyInit: [] }],
    body: initBody,
    response: { 201: initReply, ...errors, 503: errorResponses.standard },
    preHandler: requirePublicKey('x-public-key'),
    handler: async (request, reply) => {
      const key = keyOf(request);
      const body = initBody.safeParse(request.body ?? {});
      if (!body.success) throw badRequest(body.error);
      if (body.data.projectId !== key.projectId) throw projectNotAllowed();
      if (!key.permissions.chat) {
        throw new HttpError('PERMISSION_REQUIRED', 403, 'This public key does not permit chat', {
          required: 'chat',
        });
      }
      const { channelId } = body.data;
      if (channelId !== undefined && !(await options.channels.isBound(key.projectId, key.id, channelId))) {
        throw new HttpError(
          'VALIDATION_ERROR',
          400,
          'channelId: not an active SDK channel of this public key',
        );
      }
      if (options.sdkTokens === null) {
        throw new HttpError('SDK_NOT_CONFIGURED', 503, 'SDK session tokens are not configured');
      }
      const sub = body.data.userId ?? `anon_${randomUUID()}`;
      const issued = await options.sdkTokens.issue({
        tenantId: key.tenantId,
        projectId: key.projectId,
        sub,
        origin: key.origin,
        ...(channelId === undefined ? {} : { channelId }),
      });
      reply.status(201).header('cache-control', 'no-store');
      return {
        success: true as const,
        token: issued.token,
        tokenType: 'sdk' as const,
        expiresAt: issued.expiresAt.toISOString(),
        // exp is whole seconds from the issue time: ceil gives the configured lifetime.
        expiresIn: Math.max(0, Math.ceil((issued.expiresAt.getTime() - now().getTime()) / 1000)),
        sessionUserId: sub,
        projectId: key.projectId,
      };
    },
  });

  // Preflights carry no key: the origin must be listed by an active key (of the project, for config).
  app.options<{ Params: { projectId: string } }>(
    '/api/v1/sdk/config/:projectId',
    { schema: { hide: true } },
    async (request, reply) => {
      const origin = originOf(request.headers);
      const { projectId } = request.params;
      // No project has an id PostgreSQL cannot store: not looked up (this route has no credential).
      const listed =
        origin !== undefined &&
        isStorableText(projectId) &&
        (await options.publicKeys.isPublicOriginListed(origin, projectId));
      return answerPreflight(reply, origin, listed, 'GET');
    },
  );
  const anyKeyPreflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = originOf(request.headers);
    const listed = origin !== undefined && (await options.publicKeys.isPublicOriginListed(origin));
    return answerPreflight(reply, origin, listed, 'POST');
  };
  app.options('/api/v1/sdk/init', { schema: { hide: true } }, anyKeyPreflight);
  for (const path of SDK_TOKEN_CORS_PATHS) app.options(path, { schema: { hide: true } }, anyKeyPreflight);
};
