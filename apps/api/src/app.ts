import websocket from '@fastify/websocket';
import {
  type ApiDescriptionOptions,
  clientErrorHandler,
  createInProcessRateLimiter,
  errorHandlerPlugin,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  openApiPlugin,
  requestIdFromHeader,
  type TenantRateLimitOptions,
  tenantRateLimitPlugin,
} from '@parley/http';
import type { Logger } from '@parley/platform';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { redactingChildLogger } from './requestLogSerializers.js';
import { type A2aRouteOptions, a2aRoutes } from './routes/a2a/index.js';
import { type AgentDiscoveryRouteOptions, agentDiscoveryRoutes } from './routes/agents/discovery.js';
import { type AgentsRouteOptions, agentsRoutes } from './routes/agents.js';
import { type AnalyticsRouteOptions, analyticsRoutes } from './routes/analytics.js';
import {
  type ChannelConnectionsRouteOptions,
  channelConnectionsRoutes,
} from './routes/channels/connections.js';
import { channelManifestRoutes } from './routes/channels/manifest.js';
import { type ChannelWebhookRouteOptions, channelWebhookRoutes } from './routes/channels/webhooks.js';
import { type ChatRouteOptions, chatRoutes } from './routes/chat/index.js';
import { type ConsoleRouteOptions, consoleRoutes } from './routes/console.js';
import { healthRoutes, type ReadinessChecks } from './routes/health.js';
import { type HttpAsyncActivityRouteOptions, httpAsyncActivityRoutes } from './routes/httpAsync/activity.js';
import { type HttpAsyncSubmitRouteOptions, httpAsyncSubmitRoutes } from './routes/httpAsync/submit.js';
import {
  type HttpAsyncSubscriptionsRouteOptions,
  httpAsyncSubscriptionsRoutes,
} from './routes/httpAsync/subscriptions.js';
import { type IngestRouteOptions, ingestRoutes } from './routes/ingest.js';
import { type MeRouteOptions, meRoutes } from './routes/me.js';
import { type ProjectionsRouteOptions, projectionsRoutes } from './routes/projections.js';
import { type RecordingsRouteOptions, recordingsRoutes } from './routes/recordings/index.js';
import { type AgUiRouteOptions, agUiRoutes } from './routes/sdk/agUi.js';
import { type SdkBootstrapRouteOptions, sdkBootstrapRoutes } from './routes/sdk/bootstrap.js';
import { type SdkChannelsRouteOptions, sdkChannelsRoutes } from './routes/sdk/channels.js';
import { type WebChatRouteOptions, webChatRoutes } from './routes/sdk/webChat.js';
import { type WidgetAssetRouteOptions, widgetAssetRoutes } from './routes/sdk/widgetAssets.js';
import { type SessionMessagesRouteOptions, sessionMessagesRoutes } from './routes/sessionMessages.js';
import { type SuspensionRouteOptions, suspensionRoutes } from './routes/suspensions.js';
import { type TracesRouteOptions, tracesRoutes } from './routes/traces.js';
import {
  type VoiceConnectionWebhookOptions,
  voiceConnectionWebhookRoutes,
} from './routes/voice/connectionWebhook.js';
import { type VoiceGatewayRouteOptions, voiceGatewayRoutes } from './routes/voice/gatewaySocket.js';
import { type VoiceMediaRouteOptions, voiceMediaRoutes } from './routes/voice/mediaStream.js';
import { type RtcVoiceRouteOptions, rtcVoiceRoutes } from './routes/voice/rtcRoutes.js';
import { type TelephonyVoiceRouteOptions, telephonyVoiceRoutes } from './routes/voice/telephonyRoutes.js';
import { type VoiceRouteOptions, voiceRoutes } from './routes/voice.js';

export interface AppOptions {
  logger: Logger;
  readiness: ReadinessChecks;
  /** Request body limit in bytes (spec 000 §8: 1 MB standard). */
  bodyLimit?: number;
  /** Per-tenant request rate; default: an in-process limiter at 100 requests per second. */
  rateLimit?: TenantRateLimitOptions;
  /** `POST /api/v1/ingest`; the route is absent without it. */
  ingest?: IngestRouteOptions;
  /** The public analytics APIs (sessions, llm-ledger); the routes are absent without it. */
  analytics?: AnalyticsRouteOptions;
  /** The public recordings API and its proxied media URLs; the routes are absent without it. */
  recordings?: RecordingsRouteOptions;
  /** The telephony provider's webhooks (recording-status callback); the routes are absent without it. */
  voice?: VoiceRouteOptions;
  /** /api/v1/voice capabilities, token, connect and status (spec 001 §4.4); absent without it. */
  telephonyVoice?: TelephonyVoiceRouteOptions;
  /** /api/v1/<VOICE_RTC_VENDOR>/capabilities and token (spec 001 §4.5); absent without it. */
  rtcVoice?: RtcVoiceRouteOptions;
  /** The voice gateway's media WebSocket /api/v1/voice/media/{callSid} (pipeline mode); absent without it. */
  voiceMedia?: VoiceMediaRouteOptions;
  /** The voice gateway's WebSocket for voice_gateway and byoc_sip connections (docs/voice.md); absent without it. */
  voiceGateway?: VoiceGatewayRouteOptions;
  /** The webhook `voice` connections advertise, /api/v1/channels/voice/webhook/{identifier}; absent without it. */
  voiceConnections?: VoiceConnectionWebhookOptions;
  /** The conversation endpoints (chat/send, chat/stream, chat/agent, sessions/{id}/end); absent without it. */
  chat?: ChatRouteOptions;
  /** The session trace APIs (spec 001 §4.8); the routes are absent without it. */
  traces?: TracesRouteOptions;
  /** GET /api/v1/me: who the credential is (issue 10 A); absent without it. */
  me?: MeRouteOptions;
  /** The session transcript GET /api/projects/{projectId}/sessions/{sessionId}/messages; absent without it. */
  sessionMessages?: SessionMessagesRouteOptions;
  /** Agent management (/api/v1/projects/{projectId}/agents); the routes are absent without it. */
  agents?: AgentsRouteOptions;
  /** The channel manifest (spec 001 §2.2) and channel connections (§4.2); the routes are absent without it. */
  channelConnections?: ChannelConnectionsRouteOptions;
  /** The inbound channel webhooks (spec 001 §4.1); the routes are absent without it. */
  channelWebhooks?: ChannelWebhookRouteOptions;
  /** The A2A protocol channel (spec 001 §2.2, §6): JSON-RPC and agent card per a2a connection; absent without it. */
  a2a?: A2aRouteOptions;
  /** HTTP async webhook subscriptions (spec 001 §4.9); the routes are absent without it. */
  httpAsyncSubscriptions?: HttpAsyncSubscriptionsRouteOptions;
  /** A webhook subscription's Activity log, test message and redelivery (spec 001 §4.9); absent without it. */
  httpAsyncActivity?: HttpAsyncActivityRouteOptions;
  /** HTTP async submit (spec 001 §4.9): http-async/message and the earlier http_async/send; absent without it. */
  httpAsyncSubmit?: HttpAsyncSubmitRouteOptions;
  /** SDK channels and their share/embed tokens (spec 001 §4.6); the routes are absent without it. */
  sdkChannels?: SdkChannelsRouteOptions;
  /** Widget configuration and SDK bootstrap with public `pk_` keys, and their CORS (spec 001 §4.7); absent without it. */
  sdkBootstrap?: SdkBootstrapRouteOptions;
  /** The embeddable chat widget: GET /sdk/widget.js and the demo page GET /sdk/widget; absent without it. */
  widget?: WidgetAssetRouteOptions;
  /** The web chat WebSocket `GET /api/v1/sdk/ws` (SDK tokens); absent without it. */
  webChat?: WebChatRouteOptions;
  /** AG-UI runs `POST /api/v1/ag-ui/run` (SSE of AG-UI events); absent without it. */
  agUi?: AgUiRouteOptions;
  /** The operator console at /console/ (apps/console, built); absent without it. */
  console?: ConsoleRouteOptions;
  /** The projections admin API (/api/v1/projections, rebuilds run by the worker); absent without it. */
  projections?: ProjectionsRouteOptions;
  /** GET /api/agents/: agent discovery (spec 000 §9). */
  agentDiscovery?: AgentDiscoveryRouteOptions;
  /** POST /api/v1/suspensions/{id}/callback: suspended tools resumed by their external system. */
  suspensions?: SuspensionRouteOptions;
}

/**
 * The public APIs with an OpenAPI description and a version of their own (spec 000 §9.3), served
 * at `/openapi/<name>.json` beside the whole document (docs/api.md "Versions"). A breaking change
 * to one of them is a new major version of its description.
 */
export const PUBLIC_API_DESCRIPTIONS: readonly ApiDescriptionOptions[] = [
  {
    name: 'recordings',
    tag: 'recordings',
    title: 'Parley recordings API',
    version: '1.0.0',
    description: 'Call recordings of a session: metadata and ready-to-use media URLs (spec 000 §4.1).',
  },
  {
    name: 'analytics',
    tag: 'analytics',
    title: 'Parley analytics API',
    version: '1.0.0',
    description: 'Session summaries and the LLM call ledger (spec 000 §4.2, §4.3).',
  },
];

/**
 * One log line per request, at debug: Fastify's own two lines per request at info buried the rest of
 * a terminal's output (`LOG_LEVEL=debug` shows them). A request that failed is logged by the error
 * handler as before.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    request.log.debug(error ? { ...line, err: error } : line, 'request completed');
  }
}

/**
 * The API as a Fastify instance that does not listen (server.ts does), so
 * tests drive it with app.inject. Infrastructure plugins (errors, OpenAPI,
 * rate limit) come first: the last two only see routes added after them.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 1_000_000,
    genReqId: requestIdFromHeader,
    // Path parameters up to this long reach the routes (Fastify's default, 100, answers 414 first),
    // so that a long sessionId gets the spec's 400 INVALID_SESSION_ID (spec 000 §8: 1..256).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router's 414/400 and the HTTP server's 431/408/400 in the standard envelope, as documented
    // in /openapi.json (openApiPlugin adds them to every operation).
    frameworkErrors,
    clientErrorHandler,
    // Request logs carry the URL: redact media tokens from it.
    childLoggerFactory: redactingChildLogger,
    // A request that reaches a stopping process on a kept-alive connection is served (the process
    // still has its database) and answered `Connection: close`; Fastify's default would answer 503
    // in a body outside the spec's envelopes.
    return503OnClosing: false,
    logController: new OneLinePerRequest(),
  });

  await app.register(errorHandlerPlugin);
  // WebSocket routes (`{ websocket: true }`): the web chat (routes/sdk/webChat.ts) and the voice media
  // stream (routes/voice/mediaStream.ts) both rely on this ONE registration; do not register
  // @fastify/websocket again in a route plugin. Messages above 1 MB close the socket (1009).
  await app.register(websocket, { options: { maxPayload: 1_048_576 } });
  await app.register(openApiPlugin, {
    title: 'Parley API',
    version: '0.1.0',
    apis: PUBLIC_API_DESCRIPTIONS,
  });
  await app.register(
    tenantRateLimitPlugin,
    options.rateLimit ?? { limiter: createInProcessRateLimiter(), defaultLimit: 100 },
  );

  await app.register(healthRoutes, { checks: options.readiness });
  if (options.ingest) await app.register(ingestRoutes, options.ingest);
  if (options.analytics) await app.register(analyticsRoutes, options.analytics);
  if (options.recordings) await app.register(recordingsRoutes, options.recordings);
  if (options.voice) await app.register(voiceRoutes, options.voice);
  if (options.telephonyVoice) await app.register(telephonyVoiceRoutes, options.telephonyVoice);
  if (options.rtcVoice) await app.register(rtcVoiceRoutes, options.rtcVoice);
  if (options.voiceMedia) await app.register(voiceMediaRoutes, options.voiceMedia);
  if (options.voiceGateway) await app.register(voiceGatewayRoutes, options.voiceGateway);
  if (options.voiceConnections) await app.register(voiceConnectionWebhookRoutes, options.voiceConnections);
  if (options.chat) await app.register(chatRoutes, options.chat);
  if (options.traces) await app.register(tracesRoutes, options.traces);
  if (options.me) await app.register(meRoutes, options.me);
  if (options.sessionMessages) await app.register(sessionMessagesRoutes, options.sessionMessages);
  if (options.agents) await app.register(agentsRoutes, options.agents);
  if (options.agentDiscovery) await app.register(agentDiscoveryRoutes, options.agentDiscovery);
  if (options.projections) await app.register(projectionsRoutes, options.projections);
  if (options.suspensions) await app.register(suspensionRoutes, options.suspensions);
  if (options.channelConnections) {
    await app.register(channelManifestRoutes);
    await app.register(channelConnectionsRoutes, options.channelConnections);
  }
  if (options.channelWebhooks) {
    // Synchronous channels (contact centre, VoiceXML) run their turn in the webhook request, with
    // the runtime the chat routes use.
    const runtime = options.chat?.runtime;
    await app.register(channelWebhookRoutes, {
      ...(runtime === undefined ? {} : { runTurn: (req, turn) => runtime.runTurn(req, turn) }),
      ...options.channelWebhooks,
    });
  }
  if (options.a2a) await app.register(a2aRoutes, options.a2a);
  if (options.httpAsyncSubscriptions)
    await app.register(httpAsyncSubscriptionsRoutes, options.httpAsyncSubscriptions);
  if (options.httpAsyncActivity) await app.register(httpAsyncActivityRoutes, options.httpAsyncActivity);
  if (options.httpAsyncSubmit) await app.register(httpAsyncSubmitRoutes, options.httpAsyncSubmit);
  if (options.sdkChannels) await app.register(sdkChannelsRoutes, options.sdkChannels);
  if (options.sdkBootstrap) await app.register(sdkBootstrapRoutes, options.sdkBootstrap);
  if (options.webChat) await app.register(webChatRoutes, options.webChat);
  if (options.agUi) await app.register(agUiRoutes, options.agUi);
  if (options.widget) await app.register(widgetAssetRoutes, options.widget);
  if (options.console) await app.register(consoleRoutes, options.console);
  return app;
}
