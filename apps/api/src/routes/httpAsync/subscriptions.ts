import {
  SUBSCRIPTION_AUTH_MODES,
  type SubscriptionStore,
  type SubscriptionWithSecret,
  secretRotationSchema,
  subscriptionInputSchema,
  subscriptionPatchSchema,
  WEBHOOK_EVENT_TYPES,
  type WebhookSubscription,
} from '@parley/channels';
import { addRoute, HttpError, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { itemParams, projectCrudRoutes } from '../projectCrudRoutes.js';
import { channelResourceAccess, requireChannelKey } from '../projectResources.js';

export interface HttpAsyncSubscriptionsRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  /** Null when CHANNEL_CREDENTIALS_KEY is not configured: the routes answer 503 CHANNELS_NOT_CONFIGURED. */
  subscriptions: SubscriptionStore | null;
}

const subscriptionBody = z.object({
  id: z.string().describe('The Source ID callers send as `subscription_id`'),
  tenantId: z.string(),
  projectId: z.string(),
  displayName: z.string(),
  callbackUrl: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  status: z.enum(['active', 'paused']),
  authMode: z.enum(SUBSCRIPTION_AUTH_MODES),
  createdAt: z.string(),
  updatedAt: z.string(),
});
type SubscriptionBody = z.infer<typeof subscriptionBody>;

const toBody = (s: WebhookSubscription): SubscriptionBody => ({
  ...s,
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});

const one = z.object({ success: z.literal(true), subscription: subscriptionBody });
const withSecret = one.extend({
  secret: z
    .string()
    .optional()
    .describe(
      'HMAC subscriptions only: the signing secret, returned this once (store it now; rotate-secret makes a new one)',
    ),
});
/** The standard envelope plus the guard's reason (an exposed detail of CallbackUrlRefusedError). */
const badRequest = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z
        .object({ reason: z.string() })
        .optional()
        .describe(
          'On CALLBACK_URL_REFUSED: invalid_url, url_too_long, unsupported_scheme, insecure_scheme, ' +
            'credentials_in_url, dns_failure or forbidden_address',
        ),
    }),
  })
  .describe('VALIDATION_ERROR, or CALLBACK_URL_REFUSED with `error.details.reason`');

const notFound = (id: string) =>
  new HttpError('SUBSCRIPTION_NOT_FOUND', 404, `webhook subscription not found: ${id}`);

const answer = (saved: SubscriptionWithSecret) => ({
  success: true as const,
  subscription: toBody(saved.subscription),
  ...(saved.secret === undefined ? {} : { secret: saved.secret }),
});

/**
 * Webhook subscriptions of the HTTP async channel (spec 001 §4.9, what the Studio UI manages):
 * `/api/projects/{projectId}/webhook-subscriptions`. Same credentials and permissions as channel
 * connections: reading needs `channel_connection:read`, changing `channel_connection:write`. The
 * HMAC secret is returned only by create and rotate-secret; a bearer token is never returned.
 */
export const httpAsyncSubscriptionsRoutes: FastifyPluginAsync<HttpAsyncSubscriptionsRouteOptions> = async (
  app,
  options,
) => {
  const access = channelResourceAccess(options);
  const store = (): SubscriptionStore => requireChannelKey(options.subscriptions, 'Webhook subscriptions');

  const { common, errors } = access;
  const base = '/api/projects/:projectId/webhook-subscriptions';
  const routes = projectCrudRoutes(app, access, {
    base,
    names: {
      operation: 'WebhookSubscription',
      label: 'webhook subscription',
      one: 'subscription',
      many: 'subscriptions',
    },
    item: { body: subscriptionBody, toBody, response: one },
    store,
    notFound,
    notes: {
      list: '; deleted ones are left out',
      delete: ' (final: it stops receiving events and cannot be resumed)',
    },
  });

  routes.list();

  routes.create({
    summary: 'Create a webhook subscription',
    description:
      'The callback URL must be https and resolve only to public addresses (HTTP_ASYNC_CALLBACK_ALLOWLIST excepted): ' +
      'else 400 CALLBACK_URL_REFUSED. `authMode` hmac (default): the answer holds the generated signing `secret`, ' +
      'shown only this once. `authMode` bearer: give `bearerToken`; it is sent as `Authorization: Bearer` and never returned.',
    body: subscriptionInputSchema,
    // CALLBACK_URL_REFUSED carries `error.details.reason` (an exposed detail of the error).
    response: { 201: withSecret, 400: badRequest },
    save: async (request) => answer(await store().create(request.params.projectId, request.body)),
  });

  routes.get();

  routes.update({
    summary: 'Change a webhook subscription, pause or resume it',
    description:
      'Only the fields given change. A new callback URL is checked like on create. `status` is active or paused; ' +
      'deleting is DELETE and final. The auth mode cannot change: create a new subscription instead.',
    body: subscriptionPatchSchema,
    response: { 200: one, 400: badRequest },
    save: async (request) => ({
      success: true as const,
      subscription: toBody(await store().update(request.params.projectId, request.params.id, request.body)),
    }),
  });

  routes.delete();

  addRoute(app, {
    ...common,
    method: 'POST',
    url: `${base}/:id/rotate-secret`,
    summary: 'Replace the return-path secret of a webhook subscription',
    description:
      'HMAC subscriptions: no body (or `{}`); the answer holds the new `secret`, shown only this once. Bearer ' +
      'subscriptions: `{ "bearerToken": "…" }`, not echoed. The old secret stops working at once.',
    operationId: 'rotateWebhookSubscriptionSecret',
    params: itemParams,
    // Fastify hands a bodiless POST over as null.
    body: secretRotationSchema.nullish(),
    response: { 200: withSecret, ...errors },
    preHandler: access.write,
    handler: async (request, reply) => {
      const saved = await store().rotateSecret(
        request.params.projectId,
        request.params.id,
        request.body ?? {},
      );
      reply.header('cache-control', 'no-store');
      return answer(saved);
    },
  });
};
