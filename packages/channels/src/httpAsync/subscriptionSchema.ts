import { ParleyError } from '@parley/platform';
import { z } from 'zod';
import type { CallbackUrlRefusal } from './callbackUrl.js';

/** What a subscription can receive (spec 001 §4.9, §6). */
export const WEBHOOK_EVENT_TYPES = ['agent.response', 'agent.status', 'agent.media'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const SUBSCRIPTION_AUTH_MODES = ['hmac', 'bearer'] as const;
export type SubscriptionAuthMode = (typeof SUBSCRIPTION_AUTH_MODES)[number];
/** `deleted` is final and never shown: a subscription the API returns is active or paused. */
export type SubscriptionStatus = 'active' | 'paused';

export class SubscriptionNotFoundError extends ParleyError {
  constructor(id: string) {
    super('SUBSCRIPTION_NOT_FOUND', 404, `webhook subscription not found: ${id}`);
    this.name = 'SubscriptionNotFoundError';
  }
}

/** The guard refused the callback URL; `details.reason` is its refusal reason. */
export class CallbackUrlRefusedError extends ParleyError {
  readonly reason: CallbackUrlRefusal;
  constructor(reason: CallbackUrlRefusal, message: string) {
    super('CALLBACK_URL_REFUSED', 400, `callback URL refused: ${message}`, {
      details: { reason },
      exposeDetails: true,
    });
    this.name = 'CallbackUrlRefusedError';
    this.reason = reason;
  }
}

/** A secret rotation that does not fit the subscription's auth mode. */
export class SecretRotationError extends ParleyError {
  constructor(message: string) {
    super('VALIDATION_ERROR', 400, message, { details: { field: 'bearerToken' } });
    this.name = 'SecretRotationError';
  }
}

const displayName = z.string().trim().min(1).max(200);
const callbackUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((u) => URL.canParse(u), { message: 'callbackUrl must be an absolute URL' });
/** Any order, repeats allowed; stored once each, in WEBHOOK_EVENT_TYPES order. */
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(16)
  .transform((list) => WEBHOOK_EVENT_TYPES.filter((e) => list.includes(e)));
/** RFC 6750 b64token: safe in an Authorization header as it is. */
const bearerToken = z
  .string()
  .min(16)
  .max(4096)
  .regex(/^[A-Za-z0-9\-._~+/]+=*$/, {
    message: 'bearerToken is 16-4096 characters of A-Z a-z 0-9 - . _ ~ + / (then = padding)',
  });

export const subscriptionInputSchema = z
  .strictObject({
    displayName,
    callbackUrl,
    events,
    /** `hmac` (default): the service generates the signing secret. `bearer`: the caller gives the token. */
    authMode: z.enum(SUBSCRIPTION_AUTH_MODES).default('hmac'),
    bearerToken: bearerToken.optional(),
    status: z.enum(['active', 'paused']).default('active'),
  })
  .superRefine((s, ctx) => {
    if (s.authMode === 'bearer' && s.bearerToken === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['bearerToken'],
        message: 'bearerToken is required with authMode bearer',
      });
    if (s.authMode === 'hmac' && s.bearerToken !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['bearerToken'],
        message: 'bearerToken is only taken with authMode bearer (the HMAC secret is generated)',
      });
  });
export type SubscriptionInput = z.input<typeof subscriptionInputSchema>;

/** Only the fields given change. The auth mode is fixed: switching means a new subscription. */
export const subscriptionPatchSchema = z.strictObject({
  displayName: displayName.optional(),
  callbackUrl: callbackUrl.optional(),
  events: events.optional(),
  status: z.enum(['active', 'paused']).optional(),
});
export type SubscriptionPatch = z.input<typeof subscriptionPatchSchema>;

/** HMAC subscriptions: empty (a new secret is generated). Bearer: the new token. */
export const secretRotationSchema = z.strictObject({ bearerToken: bearerToken.optional() });
export type SecretRotation = z.input<typeof secretRotationSchema>;
