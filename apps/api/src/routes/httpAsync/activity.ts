import {
  DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS,
  HTTP_ASYNC_CALLBACK_QUEUE,
  httpAsyncDeliveryId,
  newHttpAsyncMessageId,
  type QueueCallbackDeps,
  QueueMissingError,
  queueHttpAsyncCallback,
  type SubscriptionStore,
  type WebhookEventType,
  type WebhookSubscription,
} from '@parley/channels';
import { type EventStore, withLogTransaction } from '@parley/eventstore';
import { addRoute, errorResponses, HttpError, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import type { Pool } from '@parley/platform';
import {
  getDelivery,
  httpAsyncActivityFreshness,
  listDeliveries,
  nextFirstAttempt,
  readDeliveryFromLog,
} from '@parley/projection-http-async-activity';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { freshnessShape, wireFreshness } from '../analyticsSchemas.js';
import { projectResourceRoutes, requireChannelKey } from '../projectResources.js';
import {
  attemptBody,
  deliveryBody,
  deliveryParams,
  listQuery,
  queuedAnswer,
  subscriptionParams,
  testBody,
  toAttemptBody,
  toDeliveryBody,
} from './activitySchemas.js';
import { testCallbackPayload } from './testPayload.js';

export interface HttpAsyncActivityRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  /** Null when CHANNEL_CREDENTIALS_KEY is not configured: the routes answer 503 CHANNELS_NOT_CONFIGURED. */
  subscriptions: SubscriptionStore | null;
  /** The Activity log's read model, and the database of the queueing transaction. */
  pool: Pool;
  /** The log: HttpAsyncCallbackQueued commits with the attempt job. */
  store: EventStore;
  /** pg-boss for `send` only, on the transaction's client (createChannelJobQueue(pool), not started). */
  boss: QueueCallbackDeps['boss'];
  /** The worker's retry schedule (HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE); attempts = its length + 1. */
  retryScheduleSeconds?: readonly number[];
  now?: () => Date;
}

/**
 * The Activity log of a webhook subscription (spec 001 §4.9 "a test message can be sent and
 * deliveries reviewed under the Activity tab"): its callback deliveries and their attempts (the
 * `http-async-activity` projection, a little behind the log: see `freshness`), the test-message
 * action and redelivery. Reading needs `channel_connection:read`, the actions
 * `channel_connection:write`, as for the subscriptions themselves.
 */
export const httpAsyncActivityRoutes: FastifyPluginAsync<HttpAsyncActivityRouteOptions> = async (
  app,
  options,
) => {
  const { auth, security, errors: resourceErrors } = projectResourceRoutes(options);
  const common = { tags: ['channels'], security };
  const errors = { ...resourceErrors, 503: errorResponses.standard };
  const actionErrors = { ...errors, 409: errorResponses.standard };
  const base = '/api/projects/:projectId/webhook-subscriptions/:id';
  const now = options.now ?? (() => new Date());
  const maxAttempts = (options.retryScheduleSeconds ?? DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS).length + 1;

  /** The project's subscription (404 when absent, another project's or deleted). */
  const subscriptionOf = async (params: { projectId: string; id: string }): Promise<WebhookSubscription> => {
    const store = requireChannelKey(options.subscriptions, 'Webhook subscriptions');
    const subscription = await store.get(params.projectId, params.id);
    if (subscription === null) {
      throw new HttpError('SUBSCRIPTION_NOT_FOUND', 404, `webhook subscription not found: ${params.id}`);
    }
    return subscription;
  };
  /** 409 while paused: the callback job would dead-letter what is queued (subscription_paused). */
  const requireActive = (subscription: WebhookSubscription): void => {
    if (subscription.status !== 'active') {
      throw new HttpError(
        'SUBSCRIPTION_PAUSED',
        409,
        'the webhook subscription is paused: its callbacks would be dead-lettered; resume it first',
      );
    }
  };
  const deliveryNotFound = (id: string) =>
    new HttpError('DELIVERY_NOT_FOUND', 404, `delivery not found: ${id}`);

  /** Queues in one transaction with its event; 503 while the worker has never created the queue. */
  const queue = async (input: Parameters<typeof queueHttpAsyncCallback>[2]): Promise<void> => {
    try {
      await withLogTransaction(options.pool, options.store, (tx) =>
        queueHttpAsyncCallback(tx, { boss: options.boss, maxAttempts, now }, input),
      );
    } catch (err) {
      if (!(err instanceof QueueMissingError)) throw err;
      throw new HttpError(
        'CALLBACK_QUEUE_MISSING',
        503,
        `the ${HTTP_ASYNC_CALLBACK_QUEUE} queue does not exist yet: start the worker once`,
      );
    }
  };

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${base}/deliveries`,
    summary: 'List the callback deliveries of a webhook subscription (its Activity log), newest first',
    description:
      'Filters: `eventType`, `status`, `messageId`. `limit` 1..200 (50), `offset`. The log is a read model: ' +
      '`freshness` says up to which log position it reflects.',
    operationId: 'listWebhookDeliveries',
    params: subscriptionParams,
    querystring: listQuery,
    response: {
      200: z.object({
        success: z.literal(true),
        deliveries: z.array(deliveryBody),
        pagination: z.object({ total: z.int(), limit: z.int(), offset: z.int() }),
        freshness: freshnessShape,
      }),
      ...errors,
    },
    preHandler: auth('channel_connection:read'),
    handler: async (request, reply) => {
      const { projectId, id } = request.params;
      await subscriptionOf(request.params);
      // Freshness first: checkpoints only advance, so the page reflects at least this position.
      const freshness = await httpAsyncActivityFreshness(options.pool);
      const { eventType, status, messageId, limit, offset } = request.query;
      // Never registered (no worker has run): no tables yet, and nothing delivered either.
      const page =
        freshness.generation === null
          ? { deliveries: [], total: 0 }
          : await listDeliveries(options.pool, {
              projectId,
              subscriptionId: id,
              ...(eventType === undefined ? {} : { eventType }),
              ...(status === undefined ? {} : { status }),
              ...(messageId === undefined ? {} : { messageId }),
              limit,
              offset,
            });
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        deliveries: page.deliveries.map(toDeliveryBody),
        pagination: { total: page.total, limit, offset },
        freshness: wireFreshness(freshness),
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${base}/deliveries/:deliveryId`,
    summary: 'Show one callback delivery with its body and every attempt',
    operationId: 'getWebhookDelivery',
    params: deliveryParams,
    response: {
      200: z.object({
        success: z.literal(true),
        delivery: deliveryBody.extend({
          payload: z.record(z.string(), z.unknown()).nullable().describe('The JSON body every attempt sends'),
        }),
        attempts: z.array(attemptBody).describe('Oldest first'),
        freshness: freshnessShape,
      }),
      ...errors,
    },
    preHandler: auth('channel_connection:read'),
    handler: async (request, reply) => {
      const { projectId, id, deliveryId } = request.params;
      await subscriptionOf(request.params);
      const freshness = await httpAsyncActivityFreshness(options.pool);
      const found =
        freshness.generation === null ? null : await getDelivery(options.pool, projectId, id, deliveryId);
      if (found === null) throw deliveryNotFound(deliveryId);
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        delivery: { ...toDeliveryBody(found), payload: found.payload },
        attempts: found.attemptLog.map(toAttemptBody),
        freshness: wireFreshness(freshness),
      };
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: `${base}/test`,
    summary: 'Send a test message to a webhook subscription',
    description:
      'Queues a sample callback of one event type (a new message id, `session_key` `ha:<subscription id>:test`, ' +
      '`metadata: { "test": true }`) and answers 202; it is delivered, signed and retried like any callback and ' +
      'appears in the Activity log with `test: true`. 400 EVENT_NOT_SUBSCRIBED for an event type the subscription ' +
      'does not receive; 409 SUBSCRIPTION_PAUSED while it is paused.',
    operationId: 'sendWebhookTestMessage',
    params: subscriptionParams,
    // Fastify hands a bodiless POST over as null.
    body: testBody.nullish(),
    response: { 202: queuedAnswer, ...actionErrors },
    preHandler: auth('channel_connection:write'),
    handler: async (request, reply) => {
      const subscription = await subscriptionOf(request.params);
      requireActive(subscription);
      const asked = request.body?.eventType;
      if (asked !== undefined && !subscription.events.includes(asked)) {
        throw new HttpError(
          'EVENT_NOT_SUBSCRIBED',
          400,
          `the subscription does not receive ${asked} (it receives ${subscription.events.join(', ')})`,
        );
      }
      const eventType =
        asked ??
        (subscription.events.includes('agent.response') ? 'agent.response' : subscription.events[0]) ??
        'agent.response';
      const messageId = newHttpAsyncMessageId();
      const deliveryId = httpAsyncDeliveryId(subscription.id, messageId, eventType, 'test');
      await queue({
        deliveryId,
        messageId,
        subscriptionId: subscription.id,
        projectId: subscription.projectId,
        tenantId: subscription.tenantId,
        eventType,
        payload: testCallbackPayload({
          eventType,
          subscriptionId: subscription.id,
          messageId,
          deliveryId,
          now: now(),
        }),
        test: true,
        firstAttempt: 1,
      });
      reply.status(202).header('cache-control', 'no-store');
      return { success: true as const, deliveryId, messageId, firstAttempt: 1 };
    },
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: `${base}/deliveries/:deliveryId/redeliver`,
    summary: 'Deliver a dead-lettered (or delivered) callback again',
    description:
      'Queues the same body with the same delivery id and message id, its attempts numbered after the ones ' +
      'made, with a full retry schedule; 202. 409 DELIVERY_IN_PROGRESS while it is pending or failed (retries ' +
      'due), decided from the event log (the Activity log may lag), so a second request right after the first ' +
      'gets 409; 409 SUBSCRIPTION_PAUSED while the subscription is paused.',
    operationId: 'redeliverWebhookDelivery',
    params: deliveryParams,
    body: z.strictObject({}).nullish(),
    response: { 202: queuedAnswer, ...actionErrors },
    preHandler: auth('channel_connection:write'),
    handler: async (request, reply) => {
      const { projectId, id, deliveryId } = request.params;
      const subscription = await subscriptionOf(request.params);
      // The log, not the read model: a redelivery must not act on a row the projection has not updated.
      const found = await readDeliveryFromLog(options.store, deliveryId);
      if (
        found === null ||
        found.projectId !== projectId ||
        found.subscriptionId !== id ||
        found.payload === null
      ) {
        throw deliveryNotFound(deliveryId);
      }
      if (found.status === 'pending' || found.status === 'failed') {
        throw new HttpError(
          'DELIVERY_IN_PROGRESS',
          409,
          `delivery ${deliveryId} is ${found.status}: wait until it is delivered or dead-lettered`,
        );
      }
      requireActive(subscription);
      const firstAttempt = nextFirstAttempt(found);
      await queue({
        deliveryId,
        messageId: found.messageId,
        subscriptionId: subscription.id,
        projectId: subscription.projectId,
        tenantId: subscription.tenantId,
        eventType: found.eventType as WebhookEventType,
        ...(found.sessionId === null ? {} : { sessionId: found.sessionId }),
        payload: found.payload,
        test: found.test,
        firstAttempt,
      });
      reply.status(202).header('cache-control', 'no-store');
      return { success: true as const, deliveryId, messageId: found.messageId, firstAttempt };
    },
  });
};
