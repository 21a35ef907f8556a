import {
  adapterKey,
  type ChannelAdapter,
  type ChannelConnection,
  type ConnectionStore,
  connectionInputSchema,
  connectionPatchSchema,
} from '@parley/channels';
import { errorResponses, HttpError, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { projectCrudRoutes } from '../projectCrudRoutes.js';
import { channelResourceAccess, requireChannelKey } from '../projectResources.js';

export interface ChannelConnectionsRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  /** Null when CHANNEL_CREDENTIALS_KEY is not configured: the routes answer 503 CHANNELS_NOT_CONFIGURED. */
  connections: ConnectionStore | null;
  /**
   * Webhook registration for platforms where the service registers its own webhook (the bot
   * platform, spec 001 §4.2): adapters with `registerWebhook`. Absent: never registered.
   */
  webhookRegistration?: {
    adapters: ReadonlyMap<string, ChannelAdapter>;
    /** PUBLIC_BASE_URL; unset: the request's own protocol and host. */
    publicBaseUrl?: string;
    /** Platform HTTP (tests: a stand-in). Default: global fetch. */
    fetch?: typeof fetch;
  };
}

const webhookRegistrationBody = z
  .object({
    status: z.enum(['registered', 'failed']),
    url: z.string().describe('The public webhook URL given to the platform'),
    error: z.string().optional().describe('The platform’s answer when registration failed'),
  })
  .describe(
    'Present when the service registered the webhook with the platform itself (telegram). A failure keeps the ' +
      'connection: fix the cause and PATCH it (any change of credentials, identifier, settings or active: true registers again).',
  );

const connectionBody = z.object({
  id: z.string(),
  tenantId: z.string(),
  projectId: z.string(),
  channelType: z.string(),
  provider: z
    .string()
    .nullable()
    .describe(
      'The provider variant (manifest `providers`), e.g. vonage for sms; null for types without variants',
    ),
  externalIdentifier: z.string(),
  name: z.string().nullable(),
  agentName: z.string().nullable(),
  deploymentId: z.string().nullable(),
  active: z.boolean(),
  status: z.enum(['active', 'inactive', 'error']),
  credentialNames: z.array(z.string()).describe('Names of the stored credentials; values are never returned'),
  settings: z.record(z.string(), z.unknown()),
  webhookPath: z.string().nullable(),
  consecutiveFailures: z.int(),
  lastError: z.object({ message: z.string(), at: z.string() }).nullable(),
  erroredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
type ConnectionBody = z.infer<typeof connectionBody>;

const toBody = (c: ChannelConnection): ConnectionBody => ({
  ...c,
  lastError: c.lastError === null ? null : { message: c.lastError.message, at: c.lastError.at.toISOString() },
  erroredAt: c.erroredAt?.toISOString() ?? null,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

const one = z.object({
  success: z.literal(true),
  connection: connectionBody,
  webhookRegistration: webhookRegistrationBody.optional(),
});
const notFound = (id: string) =>
  new HttpError('CHANNEL_CONNECTION_NOT_FOUND', 404, `channel connection not found: ${id}`);

/**
 * Channel connections (spec 001 §4.2): `/api/projects/{projectId}/channel-connections`
 * (docs/api.md "Channel connections", docs/channels.md). Platform API key or user JWT; reading
 * needs `channel_connection:read` (scope channels.read or channels.write), changing needs
 * `channel_connection:write` (channels.write). Credentials are write-only: answers list their names.
 */
export const channelConnectionsRoutes: FastifyPluginAsync<ChannelConnectionsRouteOptions> = async (
  app,
  options,
) => {
  const access = channelResourceAccess(options);
  const store = (): ConnectionStore => requireChannelKey(options.connections, 'Channel connections');
  /**
   * Registers the webhook where the service does it itself: the adapter's missing credentials (a
   * generated secret) are stored first, so the platform never calls with a secret we do not know.
   */
  const registerWebhook = async (
    request: FastifyRequest,
    connection: ChannelConnection,
  ): Promise<{ connection: ChannelConnection; registration?: z.infer<typeof webhookRegistrationBody> }> => {
    const registration = options.webhookRegistration;
    const adapter = registration?.adapters.get(adapterKey(connection.channelType, connection.provider));
    if (registration === undefined || adapter?.registerWebhook === undefined) return { connection };
    if (!connection.active || connection.webhookPath === null) return { connection };
    let resolved = await store().resolveById(connection.id);
    if (resolved === null) return { connection };
    const added = adapter.webhookCredentials?.(resolved) ?? {};
    if (Object.keys(added).length > 0) {
      connection = await store().update(connection.projectId, connection.id, { credentials: added });
      resolved = await store().resolveById(connection.id);
      if (resolved === null) return { connection };
    }
    const base = (registration.publicBaseUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
    const url = `${base}${connection.webhookPath}`;
    const apiBaseUrl = resolved.settings.apiBaseUrl;
    const result = await adapter
      .registerWebhook(resolved, url, {
        fetch: registration.fetch ?? globalThis.fetch,
        ...(typeof apiBaseUrl === 'string' && apiBaseUrl !== '' ? { apiBaseUrl } : {}),
      })
      // A network failure's message may hold the platform URL (Telegram's has the token): keep the name.
      .catch((err: unknown) => ({
        ok: false as const,
        error: err instanceof Error ? err.name : 'request failed',
      }));
    if (!result.ok)
      request.log.warn({ connectionId: connection.id, error: result.error }, 'webhook registration failed');
    return {
      connection,
      registration: result.ok
        ? { status: 'registered', url }
        : { status: 'failed', url, error: result.error },
    };
  };
  const answer = (saved: {
    connection: ChannelConnection;
    registration?: z.infer<typeof webhookRegistrationBody>;
  }) => ({
    success: true as const,
    connection: toBody(saved.connection),
    ...(saved.registration === undefined ? {} : { webhookRegistration: saved.registration }),
  });

  const base = '/api/projects/:projectId/channel-connections';
  const routes = projectCrudRoutes(app, access, {
    base,
    names: {
      operation: 'ChannelConnection',
      label: 'channel connection',
      one: 'connection',
      many: 'connections',
    },
    item: { body: connectionBody, toBody, response: one },
    store,
    notFound,
  });

  routes.list();

  routes.create({
    summary: 'Create a channel connection',
    description:
      'The channel type must be connection-eligible in the manifest; `credentials` must hold its `requiredCredentials` ' +
      'and may hold its `optionalCredentials`. (channelType, externalIdentifier) is unique: 409 CHANNEL_CONNECTION_EXISTS.',
    body: connectionInputSchema,
    response: { 201: one, 409: errorResponses.standard },
    save: async (request) =>
      answer(await registerWebhook(request, await store().create(request.params.projectId, request.body))),
  });

  routes.get();

  routes.update({
    summary: 'Change a channel connection, toggle it active or inactive',
    description:
      'Only the fields given change; `null` clears name, agentName, deploymentId. `credentials` merges: a string sets ' +
      'one, null removes it. `settings` replaces. `active: true` also clears the `error` status.',
    body: connectionPatchSchema,
    response: { 200: one, 409: errorResponses.standard },
    save: async (request) => {
      const connection = await store().update(request.params.projectId, request.params.id, request.body);
      const body = request.body;
      const reachable =
        body.credentials !== undefined ||
        body.externalIdentifier !== undefined ||
        body.settings !== undefined ||
        body.active === true;
      return answer(reachable ? await registerWebhook(request, connection) : { connection });
    },
  });

  routes.delete();
};
