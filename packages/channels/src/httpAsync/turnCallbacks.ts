import type { LogTransaction } from '@parley/eventstore';
import type { PgBoss } from 'pg-boss';
import {
  type CallbackMessage,
  type CallbackTurnOutcome,
  responseBodyFor,
  type StatusTransition,
  statusBodyFor,
} from './callbacks.js';
import { DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS, type HttpAsyncRoute, httpAsyncDeliveryId } from './jobs.js';
import { type AgentMediaPayload, agentMediaPayloadSchema } from './payloads.js';
import { queueHttpAsyncCallback } from './queueCallback.js';
import type { WebhookEventType } from './subscriptionSchema.js';

/** A media item of a reply (AgentReplied.media). */
export interface ReplyMediaItem {
  url: string;
  mimeType: string;
  name?: string;
  caption?: string;
}

/** The message whose callbacks are queued: what the turn job or a resumed turn knows of it. */
export interface CallbackSource {
  messageId: string;
  subscriptionId: string;
  projectId: string;
  tenantId: string;
  sessionKey: string;
  route: HttpAsyncRoute;
  metadata: Record<string, unknown>;
}

export interface TurnCallbacks {
  status(tx: LogTransaction, transition: StatusTransition): Promise<void>;
  response(tx: LogTransaction, outcome: CallbackTurnOutcome): Promise<void>;
  /** agent.media, when the reply carries media and the subscription asked for it (the message route only). */
  media(tx: LogTransaction, sessionId: string, media: readonly ReplyMediaItem[]): Promise<void>;
}

const mediaType = (mimeType: string): AgentMediaPayload['media'][number]['type'] => {
  const top = mimeType.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'file';
};

/** agent.media (ours; the spec does not show it): the reply's media, one callback per reply. */
export function agentMediaPayload(
  message: CallbackMessage,
  sessionId: string | null,
  media: readonly ReplyMediaItem[],
): AgentMediaPayload {
  return agentMediaPayloadSchema.parse({
    message_id: message.messageId,
    session_key: message.sessionKey,
    session_id: sessionId,
    media: media.map((m) => ({
      type: mediaType(m.mimeType),
      url: m.url,
      mime_type: m.mimeType,
      name: m.name ?? null,
    })),
    metadata: message.metadata,
  });
}

/**
 * The callbacks of one message, queued in the caller's transaction when its subscription wants
 * them (`events`): agent.status transitions, agent.response, agent.media. Delivery ids derive from
 * (subscription, message, event type, status), so queueing again queues nothing new.
 */
export function turnCallbacks(
  boss: Pick<PgBoss, 'send'>,
  source: CallbackSource,
  events: readonly WebhookEventType[] | null,
  options: { retryScheduleSeconds?: readonly number[]; now: () => Date },
): TurnCallbacks {
  const wants = (eventType: WebhookEventType) => events?.includes(eventType) === true;
  const queueDeps = {
    boss,
    maxAttempts: (options.retryScheduleSeconds ?? DEFAULT_CALLBACK_RETRY_SCHEDULE_SECONDS).length + 1,
    now: options.now,
  };
  const message: CallbackMessage = {
    messageId: source.messageId,
    sessionKey: source.sessionKey,
    metadata: source.metadata,
  };
  const queue = async (
    tx: LogTransaction,
    eventType: WebhookEventType,
    deliveryId: string,
    payload: Record<string, unknown>,
    sessionId: string | null,
  ) => {
    await queueHttpAsyncCallback(tx, queueDeps, {
      deliveryId,
      messageId: source.messageId,
      subscriptionId: source.subscriptionId,
      projectId: source.projectId,
      tenantId: source.tenantId,
      eventType,
      ...(sessionId === null ? {} : { sessionId }),
      payload,
      test: false,
      firstAttempt: 1,
    });
  };
  const deliveryOf = (eventType: WebhookEventType, discriminator = '') =>
    httpAsyncDeliveryId(source.subscriptionId, source.messageId, eventType, discriminator);
  return {
    async status(tx, transition) {
      if (!wants('agent.status')) return;
      const body = statusBodyFor(source.route, message, transition);
      await queue(
        tx,
        'agent.status',
        deliveryOf('agent.status', transition.status),
        body,
        transition.sessionId,
      );
    },
    async response(tx, outcome) {
      if (!wants('agent.response')) return;
      const deliveryId = deliveryOf('agent.response');
      const body = responseBodyFor(source.route, message, outcome, deliveryId);
      await queue(tx, 'agent.response', deliveryId, body, outcome.sessionId);
    },
    async media(tx, sessionId, media) {
      // The earlier route's subscribers know agent.response and agent.status only.
      if (media.length === 0 || source.route !== 'message' || !wants('agent.media')) return;
      await queue(
        tx,
        'agent.media',
        deliveryOf('agent.media'),
        agentMediaPayload(message, sessionId, media),
        sessionId,
      );
    },
  };
}
