import { createAuthStore } from '@parley/auth';
import {
  cachedConnectionStore,
  cachedSubscriptionStore,
  checkCallbackUrl,
  createA2aTaskStore,
  createChannelAdapters,
  createChannelJobQueue,
  createConnectionStore,
  createHttpAsyncIntake,
  createInboundPipeline,
  createSdkChannelStore,
  createSdkChannelTokens,
  createSubscriptionStore,
  keyringFromConfig,
} from '@parley/channels';
import { createSdkTokens, rateLimitFromConfig } from '@parley/http';
import { type MigrationSet, pendingMigrations, ping } from '@parley/platform';
import {
  apiBaseUrlAllowlistOf,
  callbackAllowlistOf,
  callbackRetryScheduleOf,
  type ProcessDependencies,
} from '@parley/process-services';
import { ledgerStats, listLedger } from '@parley/projection-llm-ledger';
import { createProjectionsAdmin, type Projection, projectionFreshness } from '@parley/projection-runner';
import { createSessionMessageReads, sessionMessagesProjection } from '@parley/projection-session-messages';
import { listSessions } from '@parley/projection-session-summaries';
import { createTraceReads } from '@parley/projection-traces';
import { createAgentStore, createSuspensionStore } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { closeGracefully } from './closeGracefully.js';
import { createPageCache } from './routes/pageCache.js';
import { sdkChannelLookup } from './routes/sdk/widgetConfig.js';
import { chatServices, jwtVerifierOf } from './services/chat.js';
import { recordingsServices } from './services/recordings.js';
import { ingestFacts, voiceApiServices, voiceServices } from './services/voice.js';

/** How long a tenant's rate-limit override is cached per API process. */
const TENANT_LIMIT_TTL_MS = 30_000;
/** Successful key verifications cached per API process; a revocation elsewhere applies within this. */
const KEY_CACHE_TTL_MS = 5_000;

/** What the API process is built from: every process's dependencies, plus the deployment's registry. */
export interface ApiDependencies extends ProcessDependencies {
  /** Every package's migrations (the readiness check reports pending ones). */
  migrationSets: readonly MigrationSet[];
  /** Every registered projection (the projections admin: status and rebuilds). */
  projections: readonly Projection[];
}

export interface ApiServer {
  /** Not listening yet: `app.listen({ host, port })`, or `app.inject` in tests. */
  app: FastifyInstance;
  /** Stops accepting requests, finishes those in flight, then closes what the API opened. */
  close(): Promise<void>;
}

/**
 * The API process (`parley api`, and the API half of `parley start`): every route with the
 * services it needs, built from the configuration and the process's dependencies. What this process
 * runs is read here; the routes themselves are wired in app.ts.
 */
export async function createApiServer(system: ApiDependencies): Promise<ApiServer> {
  const { config, logger, pool } = system;
  const auth = createAuthStore(pool, { verifyCacheTtlMs: KEY_CACHE_TTL_MS });
  const tenantLimits = new Map<string, { limit: number | undefined; until: number }>();
  const rateLimit = rateLimitFromConfig(
    config,
    async (tenantId) => {
      const cached = tenantLimits.get(tenantId);
      if (cached && cached.until > Date.now()) return cached.limit;
      const limit = (await auth.getTenant(tenantId))?.rateLimitPerSecond ?? undefined;
      tenantLimits.set(tenantId, { limit, until: Date.now() + TENANT_LIMIT_TTL_MS });
      return limit;
    },
    logger,
  );
  const recordings = recordingsServices(system, auth);
  const verifyJwt = jwtVerifierOf(system, auth);
  const chat = chatServices(system, auth, verifyJwt);
  const voiceApi = voiceApiServices(system, (key) => auth.verifyApiKey(key), verifyJwt);
  const channelKeyring = keyringFromConfig(config);
  // Agents' secrets are encrypted with the connections' keyring (CHANNEL_CREDENTIALS_KEY).
  const agents = createAgentStore(pool, channelKeyring ?? undefined);
  // A connection's settings.apiBaseUrl: no private or loopback address unless CHANNEL_API_BASE_URL_ALLOWLIST says so.
  // Webhooks resolve their connection from a per-process cache (CONNECTION_CACHE_TTL_MS).
  const channelConnections =
    channelKeyring === null
      ? null
      : cachedConnectionStore(
          createConnectionStore(pool, channelKeyring, {
            apiBaseUrl: { allowlist: apiBaseUrlAllowlistOf(config) },
          }),
        );
  const channelAdapters = createChannelAdapters({
    vonageWebhookMaxAgeSeconds: config.VONAGE_WEBHOOK_MAX_AGE_SECONDS,
  });
  const callbackAllowlist = callbackAllowlistOf(config);
  // pg-boss used only to insert jobs (send with the caller's transaction): never started here.
  const jobs = createChannelJobQueue(pool);
  const sdkChannels = createSdkChannelStore(pool);
  // The submit's subscription check from a per-process cache (as connections); writes through it forget it.
  const webhookSubscriptions =
    channelKeyring === null
      ? null
      : cachedSubscriptionStore(
          createSubscriptionStore(pool, channelKeyring, {
            checkUrl: (url) => checkCallbackUrl(url, { allowlist: callbackAllowlist }),
          }),
        );
  const channelPipeline =
    channelConnections === null
      ? null
      : createInboundPipeline({
          pool,
          boss: jobs,
          adapters: channelAdapters,
          connections: channelConnections,
          // Synchronous channels record their delivery (ChannelMessageSent) themselves.
          store: system.store,
          logger: logger.child({ component: 'channels' }),
        });
  const app = await buildApp({
    logger: logger.child({ component: 'api' }),
    readiness: {
      database: () => ping(system.databaseUrl),
      pendingMigrations: () => pendingMigrations(pool, system.migrationSets),
    },
    rateLimit: rateLimit.options,
    ingest: {
      verify: (key) => auth.verifyApiKey(key),
      ingest: ingestFacts(system, auth),
    },
    analytics: {
      verify: (key) => auth.verifyApiKey(key),
      listSessions: (filter) => listSessions(pool, filter),
      listLedger: (filter) => listLedger(pool, filter),
      ledgerStats: (filter) => ledgerStats(pool, filter),
      // Enabled unless the project's reporting exposure turns the identity field group off.
      callerNumberLookupEnabled: async (projectId) =>
        (await auth.getProject(projectId))?.settings.reporting?.identityFields !== false,
      freshness: (projection) => projectionFreshness(pool, projection),
      pageCache: createPageCache(),
    },
    recordings: recordings.options,
    voice: voiceServices(system, auth),
    telephonyVoice: voiceApi.telephony,
    rtcVoice: voiceApi.rtc,
    // The voice gateway's media WebSocket: pipeline turns and realtime conversations of the chat runtime.
    voiceMedia: voiceApi.media(chat.runtime, channelConnections),
    // The voice gateway socket (voice_gateway, byoc_sip) and the voice connections' webhook: their
    // connections' secrets need CHANNEL_CREDENTIALS_KEY.
    ...(channelConnections === null
      ? {}
      : {
          voiceGateway: voiceApi.gateway(chat.runtime, channelConnections),
          voiceConnections: voiceApi.connections(channelConnections),
        }),
    chat: chat.options,
    // Web chat WebSocket and AG-UI: the conversation endpoints' credentials, runtime and limits.
    webChat: { ...chat.options, store: system.store },
    agUi: { ...chat.options, pool },
    agents: { verifyApiKey: (key) => auth.verifyApiKey(key), verifyJwt, agents },
    agentDiscovery: { verifyApiKey: (key) => auth.verifyApiKey(key), verifyJwt, agents },
    // Suspended tools' signed callbacks (resumed by the worker's tool-resume queue).
    suspensions: {
      suspensions: channelKeyring === null ? null : createSuspensionStore(pool, channelKeyring),
      boss: jobs,
    },
    traces: { verifyApiKey: (key) => auth.verifyApiKey(key), verifyJwt, reads: createTraceReads(pool) },
    // Deployment-wide projections admin: status and rebuilds (jobs for the worker's projection-rebuild queue).
    projections: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      admin: createProjectionsAdmin({
        pool,
        store: system.store,
        projections: system.projections,
        boss: jobs,
      }),
    },
    me: { verifyApiKey: (key) => auth.verifyApiKey(key), verifyJwt, lookups: auth },
    sessionMessages: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      reads: createSessionMessageReads(pool),
      freshness: () => projectionFreshness(pool, sessionMessagesProjection.name),
    },
    channelConnections: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      connections: channelConnections,
      webhookRegistration: {
        adapters: channelAdapters,
        ...(config.PUBLIC_BASE_URL === undefined ? {} : { publicBaseUrl: config.PUBLIC_BASE_URL }),
      },
    },
    httpAsyncSubscriptions: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      subscriptions: webhookSubscriptions,
    },
    httpAsyncActivity: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      subscriptions: webhookSubscriptions,
      pool,
      store: system.store,
      boss: jobs,
      // The worker's schedule: a redelivery or test message gets as many attempts as any callback.
      retryScheduleSeconds: callbackRetryScheduleOf(config),
    },
    httpAsyncSubmit: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      intake:
        webhookSubscriptions === null
          ? null
          : createHttpAsyncIntake({
              pool,
              store: system.store,
              subscriptions: webhookSubscriptions,
              boss: jobs,
            }),
    },
    sdkChannels: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      channels: sdkChannels,
      // Share/embed tokens are signed with SDK_TOKEN_SECRET; unset: 503 SDK_NOT_CONFIGURED.
      tokens:
        config.SDK_TOKEN_SECRET === undefined
          ? null
          : createSdkChannelTokens({ secret: config.SDK_TOKEN_SECRET }),
      publicBaseUrl: config.PUBLIC_BASE_URL,
    },
    sdkBootstrap: {
      publicKeys: auth,
      channels: sdkChannelLookup(sdkChannels),
      // SDK session tokens only with SDK_TOKEN_SECRET (the chat routes verify them); unset: init is 503.
      sdkTokens:
        config.SDK_TOKEN_SECRET === undefined ? null : createSdkTokens({ secret: config.SDK_TOKEN_SECRET }),
    },
    // GET /sdk/widget.js and the demo page /sdk/widget: static, public.
    widget: {
      // The pages of SDK channels' share and embed links (tokens signed with SDK_TOKEN_SECRET).
      channelLinks: {
        tokens:
          config.SDK_TOKEN_SECRET === undefined
            ? null
            : createSdkChannelTokens({ secret: config.SDK_TOKEN_SECRET }),
        channels: sdkChannels,
        publicKeys: auth,
      },
    },
    // The operator console at /console/ (apps/console/dist, built by npm install / npm start).
    console: {},
    // Inbound webhooks and A2A need the connections' secrets: absent without CHANNEL_CREDENTIALS_KEY.
    ...(channelPipeline === null || channelConnections === null
      ? {}
      : {
          channelWebhooks: {
            pipeline: channelPipeline,
            ...(config.PUBLIC_BASE_URL === undefined ? {} : { publicBaseUrl: config.PUBLIC_BASE_URL }),
          },
          a2a: {
            verifyApiKey: (key: string) => auth.verifyApiKey(key),
            connections: channelConnections,
            rpc: {
              tasks: createA2aTaskStore(pool),
              deliver: (connection, messages) => channelPipeline.deliver(connection, messages),
            },
            agents,
            ...(config.PUBLIC_BASE_URL === undefined ? {} : { publicBaseUrl: config.PUBLIC_BASE_URL }),
          },
        }),
  });
  return {
    app,
    async close() {
      await closeGracefully(app);
      await rateLimit.close();
      await recordings.close();
      await chat.close();
      await voiceApi.close();
    },
  };
}
