import { manifestEntry } from '@parley/channels';
import type { EventStore } from '@parley/eventstore';
import { addRoute, callerReaches, callerSoleProject, errorResponses, HttpError } from '@parley/http';
import type { TelephonyAccountSecrets } from '@parley/telephony';
import {
  type CallWebhookDeps,
  handleCallStatus,
  handleConnect,
  issueTelephonyClientToken,
  voiceCapabilities,
} from '@parley/voice';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { paramsOf, parseFormBodies, signedUrlOf } from '../voice.js';
import { callerErrors, type VoiceCallerOptions, voiceAuth, voiceSecurity } from './voiceCommon.js';
import { rethrowLimit, voiceNotConfigured } from './voiceErrors.js';

export interface TelephonyVoiceRouteOptions extends VoiceCallerOptions {
  /** PUBLIC_BASE_URL: what the provider signs and where the media WebSocket is reached. */
  publicBaseUrl?: string | undefined;
  /** Telephony accounts with their auth tokens (@parley/telephony createTelephonyAccountStore().secrets). */
  account(accountSid: string): Promise<TelephonyAccountSecrets | null>;
  store: EventStore;
}

const ID = /^[A-Za-z0-9_.:-]{1,256}$/;

const tokenBody = z.object({
  sessionId: z.string().regex(ID).describe('The Parley session the call belongs to'),
  projectId: z.string().min(1).max(256).optional().describe("Default: the API key's project"),
});

const tokenReply = z.object({
  success: z.literal(true),
  data: z.object({
    token: z.string().describe("The provider client SDK's access token (JWT)"),
    identity: z.string().describe('`parley-<sessionId>`: the client identity the provider registers'),
    sessionId: z.string(),
  }),
});

const capabilitiesReply = z.object({
  success: z.literal(true),
  data: z.object({
    telephony: z.boolean().describe('The telephony provider client token is configured'),
    stt: z.boolean().describe('A speech-to-text engine is configured'),
    tts: z.boolean().describe('A text-to-speech engine is configured'),
    fullVoice: z.boolean().describe('All three'),
    voiceGateway: z
      .boolean()
      .describe(
        'The voice gateway socket takes calls (voice_gateway and byoc_sip connections): voice enabled with both speech engines',
      ),
    providers: z
      .array(z.string())
      .describe(
        'The providers a `voice` connection may name (`twilio`: media streams; `byoc_sip`: your own SIP gateway)',
      ),
  }),
});

const webhookHeaders = z.object({ 'x-twilio-signature': z.string() });
const webhookBody = z
  .object({ AccountSid: z.string(), CallSid: z.string() })
  .describe('application/x-www-form-urlencoded (Twilio names); every parameter is covered by the signature');

/**
 * The telephony provider routes of spec 001 §4.4 under /api/v1/voice: capabilities and client
 * token (caller credentials), and the provider's connect and status webhooks (Twilio-style
 * signature). Form bodies are parsed in this plugin only.
 */
export const telephonyVoiceRoutes: FastifyPluginAsync<TelephonyVoiceRouteOptions> = async (app, options) => {
  const { settings } = options;
  parseFormBodies(app);
  const calls: CallWebhookDeps = {
    account: options.account,
    store: options.store,
    limiter: options.limiter,
    enabled: settings.enabled,
    maxConcurrentCalls: settings.maxConcurrentCalls,
  };
  const caller = { tags: ['voice'], security: voiceSecurity, preHandler: voiceAuth(options) };
  const webhook = {
    tags: ['voice'],
    validation: 'document' as const,
    headers: webhookHeaders,
    body: webhookBody,
    consumes: ['application/x-www-form-urlencoded'],
  };

  addRoute(app, {
    ...caller,
    method: 'GET',
    url: '/api/v1/voice/capabilities',
    summary: 'Which voice services are configured',
    operationId: 'voiceCapabilities',
    response: { 200: capabilitiesReply, ...callerErrors },
    handler: async () => {
      const services = voiceCapabilities(settings);
      const voiceGateway = services.stt && services.tts && settings.mode !== 'realtime';
      const providers = (manifestEntry('voice')?.providers ?? []).map((v) => v.provider);
      return { success: true as const, data: { ...services, voiceGateway, providers } };
    },
  });

  addRoute(app, {
    ...caller,
    method: 'POST',
    url: '/api/v1/voice/token',
    summary: "A short-lived token for the telephony provider's client SDK",
    description:
      'A Twilio-style AccessToken (HS256 with the API key secret, voice grant) valid ' +
      'VOICE_TELEPHONY_TOKEN_TTL_SECONDS. 404 PROJECT_NOT_FOUND for a project the caller does not reach; ' +
      '503 VOICE_NOT_CONFIGURED while voice is disabled or the telephony credentials are not set.',
    operationId: 'voiceToken',
    body: tokenBody,
    response: {
      200: tokenReply,
      400: errorResponses.standard,
      404: errorResponses.standard,
      ...callerErrors,
      503: errorResponses.standard,
    },
    handler: async (request) => {
      const who = request.caller;
      const projectId = request.body.projectId ?? (who ? callerSoleProject(who) : undefined);
      if (!who || projectId === undefined || !callerReaches(who, projectId)) {
        throw new HttpError('PROJECT_NOT_FOUND', 404, 'Project not found');
      }
      const credentials = settings.telephony.credentials;
      if (!settings.enabled || credentials === null) throw voiceNotConfigured();
      const issued = await issueTelephonyClientToken({
        credentials,
        sessionId: request.body.sessionId,
        projectId,
        ttlSeconds: settings.telephony.tokenTtlSeconds,
      });
      return { success: true as const, data: issued };
    },
  });

  addRoute(app, {
    ...webhook,
    method: 'POST',
    url: '/api/v1/voice/connect',
    summary: "The provider's voice webhook: stream the call's audio to Parley (signed; provider only)",
    description:
      'Answers `<Response><Connect><Stream url="wss://<PUBLIC_BASE_URL host>/api/v1/voice/media/<CallSid>">` with ' +
      'the parameters projectId and (when the call names one) sessionId. Admits the call against the tenant’s ' +
      'voice.maxConcurrentCalls (429 VOICE_SESSION_LIMIT_REACHED); 401 UNAUTHORIZED for a missing or bad ' +
      'signature or an unknown account; 503 ' +
      'VOICE_NOT_CONFIGURED while voice is disabled.',
    operationId: 'voiceConnect',
    response: {
      200: z.string().describe('text/xml: TwiML'),
      400: errorResponses.standard,
      401: errorResponses.standard,
      429: errorResponses.standard,
      503: errorResponses.standard,
    },
    handler: async (request, reply) => {
      const signedUrl = signedUrlOf(request, options.publicBaseUrl);
      const signature = request.headers['x-twilio-signature'];
      const outcome = await handleConnect(calls, {
        url: signedUrl,
        params: paramsOf(request),
        signature: typeof signature === 'string' ? signature : undefined,
        publicBaseUrl: options.publicBaseUrl ?? new URL(signedUrl).origin,
      }).catch(rethrowLimit);
      return reply.type('text/xml; charset=utf-8').send(outcome.twiml);
    },
  });

  addRoute(app, {
    ...webhook,
    method: 'POST',
    url: '/api/v1/voice/status',
    summary: "The provider's call status callback (signed; provider only)",
    description:
      'Appends VoiceCallStatusChanged once per (CallSid, CallStatus) to the session stream of the call (when ' +
      "it maps to a session of the account's project) or `voicecall-<CallSid>`; a final status (completed, " +
      'busy, no-answer, canceled, failed) releases the call from the concurrency limit. 401 UNAUTHORIZED for a ' +
      'missing or bad signature or an unknown account.',
    operationId: 'voiceStatus',
    response: {
      200: z.object({
        success: z.literal(true),
        data: z.object({
          callId: z.string(),
          status: z.string(),
          eventId: z.uuid(),
          sessionId: z.string().nullable(),
        }),
      }),
      400: errorResponses.standard,
      401: errorResponses.standard,
    },
    handler: async (request) => {
      const signature = request.headers['x-twilio-signature'];
      const outcome = await handleCallStatus(calls, {
        url: signedUrlOf(request, options.publicBaseUrl),
        params: paramsOf(request),
        signature: typeof signature === 'string' ? signature : undefined,
      });
      return {
        success: true as const,
        data: {
          callId: outcome.callId,
          status: outcome.status,
          eventId: outcome.eventId,
          sessionId: outcome.sessionId,
        },
      };
    },
  });
};
