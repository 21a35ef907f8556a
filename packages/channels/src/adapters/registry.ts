import type { Pool } from '@parley/platform';
import { createA2aAdapter } from '../a2a/a2aAdapter.js';
import type { InboundAdapter } from '../inbound/pipeline.js';
import { adapterKey, providerVariants } from '../manifest/providers.js';
import { createContactCenterAdapter } from './contactCenter/index.js';
import { createEmailAdapter } from './email/index.js';
import { createInstagramAdapter } from './instagram/index.js';
import { createLineAdapter } from './line/index.js';
import { createMessengerAdapter } from './messenger/index.js';
import { createMsTeamsAdapter } from './msteams/index.js';
import { createSlackAdapter } from './slack/index.js';
import { createSmsAdapter } from './sms/index.js';
import { createTelegramAdapter } from './telegram/index.js';
import { createVonageAdapter } from './vonage/index.js';
import { createVxmlAdapter } from './vxml/index.js';
import { createWhatsAppAdapter } from './whatsapp/index.js';
import { createZendeskAdapter } from './zendesk/index.js';

/**
 * The adapters this build ships, by channel type, and provider variants by `<type>/<provider>`
 * (adapterKey; the default provider's adapter is under both): what the inbound routes, the worker
 * and the connection routes use.
 */
export function createChannelAdapters(
  // `pool`: adapters that keep state in the database (a2a's task store) are included only with it.
  options: {
    now?: () => Date;
    pool?: Pool;
    /** Bot Framework OpenID metadata (msteams token keys); tests point it at a stand-in. */
    openIdMetadataUrl?: string;
    /** The fetch for calls to URLs that clients give (A2A push notifications): the callback guard. */
    callbackFetch?: typeof fetch;
    /** Vonage signed webhooks' window (VONAGE_WEBHOOK_MAX_AGE_SECONDS); default 300 s. */
    vonageWebhookMaxAgeSeconds?: number;
  } = {},
): ReadonlyMap<string, InboundAdapter> {
  const adapters: InboundAdapter[] = [
    createContactCenterAdapter(options),
    createInstagramAdapter(),
    createLineAdapter(options),
    createMessengerAdapter(),
    createMsTeamsAdapter(options),
    createSlackAdapter(options),
    createSmsAdapter(options),
    createTelegramAdapter(options),
    createVonageAdapter({
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.vonageWebhookMaxAgeSeconds === undefined
        ? {}
        : { signatureMaxAgeSeconds: options.vonageWebhookMaxAgeSeconds }),
    }),
    createVxmlAdapter(options),
    createWhatsAppAdapter(),
    createZendeskAdapter(options),
  ];
  if (options.pool !== undefined)
    adapters.push(
      createA2aAdapter({
        pool: options.pool,
        ...(options.callbackFetch === undefined ? {} : { pushFetch: options.callbackFetch }),
      }),
    );
  if (options.pool !== undefined) adapters.push(createEmailAdapter({ ...options, pool: options.pool }));
  return adapterMap(adapters);
}

/** Adapters by key: a provider's under `<type>/<provider>`, the default provider's also under the type. */
export function adapterMap(adapters: readonly InboundAdapter[]): ReadonlyMap<string, InboundAdapter> {
  const map = new Map<string, InboundAdapter>();
  for (const adapter of adapters) {
    if (adapter.provider === undefined) {
      map.set(adapter.channelType, adapter);
      continue;
    }
    map.set(adapterKey(adapter.channelType, adapter.provider), adapter);
    const variant = providerVariants(adapter.channelType).find((v) => v.provider === adapter.provider);
    if (variant?.default === true) map.set(adapter.channelType, adapter);
  }
  return map;
}
