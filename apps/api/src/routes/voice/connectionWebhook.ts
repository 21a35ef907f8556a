import type { ResolvedConnection } from '@parley/channels';
import type { EventStore } from '@parley/eventstore';
import { addRoute, errorResponses, HttpError } from '@parley/http';
import type { TelephonyAccountSecrets } from '@parley/telephony';
import {
  type CallWebhookDeps,
  handleCallStatus,
  handleConnect,
  type VoiceConcurrencyLimiter,
  type VoiceSettings,
} from '@parley/voice';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { paramsOf, parseFormBodies, signedUrlOf } from '../voice.js';
import { rethrowLimit } from './voiceErrors.js';

export interface VoiceConnectionWebhookOptions {
  /** Channel connections, credentials decrypted (resolve by channel type and identifier; by id). */
  connections: {
    resolve(channelType: string, identifier: string): Promise<ResolvedConnection | null>;
    resolveById(id: string): Promise<ResolvedConnection | null>;
  };
  store: EventStore;
  settings: VoiceSettings;
  limiter: VoiceConcurrencyLimiter;
  /** PUBLIC_BASE_URL: what the provider signs and where the media WebSocket is reached. */
  publicBaseUrl?: string | undefined;
}

/** The advertised webhook of `voice` connections on the Twilio-style provider (manifest providers.ts). */
// The parameter is named as in the generic channel webhook route (webhooks.ts).
export const VOICE_CONNECTION_WEBHOOK_PATH = '/api/v1/channels/voice/webhook/:connectionIdentifier';
/** The stream parameter naming the connection, so the media WebSocket finds the call's auth token. */
export const CONNECTION_STREAM_PARAMETER = 'connectionId';

/**
 * The provider account of a `voice` connection on the Twilio-style provider (its accountSid and
 * authToken credentials), when `accountSid` is its; null otherwise.
 */
export function connectionAccount(
  connection: ResolvedConnection | null,
  accountSid: string,
): (TelephonyAccountSecrets & { agentName?: string }) | null {
  if (connection === null || connection.channelType !== 'voice') return null;
  if ((connection.provider ?? 'twilio') !== 'twilio') return null;
  const { accountSid: sid, authToken } = connection.credentials;
  if (sid === undefined || authToken === undefined || sid !== accountSid) return null;
  return {
    accountSid: sid,
    authToken,
    tenantId: connection.tenantId,
    projectId: connection.projectId,
    recordingCredentials: { username: sid, password: authToken },
    ...(connection.agentName === null ? {} : { agentName: connection.agentName }),
  };
}

const query = z.object({
  event: z
    .enum(['status'])
    .optional()
    .describe(
      '`status`: the call status callback (set the number’s status callback URL with `?event=status`)',
    ),
});

/**
 * `POST /api/v1/channels/voice/webhook/<identifier>` (the voice connection's advertised path):
 * the provider's voice webhook, verified with the connection's own auth token, answered with the
 * same TwiML as /api/v1/voice/connect (its media stream carries `connectionId`); with
 * `?event=status`, the call status callback of /api/v1/voice/status.
 */
export const voiceConnectionWebhookRoutes: FastifyPluginAsync<VoiceConnectionWebhookOptions> = async (
  app,
  options,
) => {
  parseFormBodies(app);
  const depsOf = (connection: ResolvedConnection | null): CallWebhookDeps => ({
    account: async (accountSid) => connectionAccount(connection, accountSid),
    store: options.store,
    limiter: options.limiter,
    enabled: options.settings.enabled,
    maxConcurrentCalls: options.settings.maxConcurrentCalls,
  });

  addRoute(app, {
    method: 'POST',
    url: VOICE_CONNECTION_WEBHOOK_PATH,
    summary: "A voice connection's call webhook: stream the call's audio to Parley (signed; provider only)",
    description:
      'Set as the number’s voice webhook (and, with `?event=status`, its status callback). Verified like ' +
      '/api/v1/voice/connect and /api/v1/voice/status but with the connection’s accountSid and authToken. ' +
      '404 NOT_FOUND for an identifier with no active voice connection on the Twilio-style provider; 401 ' +
      'UNAUTHORIZED for a missing or bad signature or another account; 429 VOICE_SESSION_LIMIT_REACHED; 503 ' +
      'VOICE_NOT_CONFIGURED while voice is disabled.',
    tags: ['voice', 'channels'],
    operationId: 'voiceConnectionWebhook',
    validation: 'document',
    params: z.object({
      connectionIdentifier: z.string().describe('The connection’s externalIdentifier (e.g. its number)'),
    }),
    querystring: query,
    headers: z.object({ 'x-twilio-signature': z.string() }),
    body: z
      .object({ AccountSid: z.string(), CallSid: z.string() })
      .describe(
        'application/x-www-form-urlencoded (Twilio names); every parameter is covered by the signature',
      ),
    consumes: ['application/x-www-form-urlencoded'],
    response: {
      200: z.union([
        z.string().describe('text/xml: TwiML'),
        z.object({
          success: z.literal(true),
          data: z.object({
            callId: z.string(),
            status: z.string(),
            eventId: z.uuid(),
            sessionId: z.string().nullable(),
          }),
        }),
      ]),
      400: errorResponses.standard,
      401: errorResponses.standard,
      404: errorResponses.standard,
      429: errorResponses.standard,
      503: errorResponses.standard,
    },
    handler: async (request, reply) => {
      const { connectionIdentifier } = request.params as { connectionIdentifier: string };
      const found = await options.connections.resolve('voice', connectionIdentifier);
      const connection = found?.active && (found.provider ?? 'twilio') === 'twilio' ? found : null;
      if (connection === null)
        throw new HttpError('NOT_FOUND', 404, 'No channel connection for this identifier');
      const signature = request.headers['x-twilio-signature'];
      const signedUrl = signedUrlOf(request, options.publicBaseUrl);
      const call = {
        url: signedUrl,
        params: paramsOf(request),
        signature: typeof signature === 'string' ? signature : undefined,
      };
      if ((request.query as z.infer<typeof query>).event === 'status') {
        const outcome = await handleCallStatus(depsOf(connection), call);
        const { callId, status, eventId, sessionId } = outcome;
        return { success: true as const, data: { callId, status, eventId, sessionId } };
      }
      const outcome = await handleConnect(depsOf(connection), {
        ...call,
        publicBaseUrl: options.publicBaseUrl ?? new URL(signedUrl).origin,
        parameters: { [CONNECTION_STREAM_PARAMETER]: connection.id },
      }).catch(rethrowLimit);
      return reply.type('text/xml; charset=utf-8').send(outcome.twiml);
    },
  });
};
