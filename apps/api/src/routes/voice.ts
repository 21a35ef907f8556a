import { addRoute, errorResponses } from '@parley/http';
import { callbackParams, type RecordingStatusOutcome, type RecordingStatusRequest } from '@parley/telephony';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';

export interface VoiceRouteOptions {
  /**
   * PUBLIC_BASE_URL: the scheme, host and any path prefix the telephony provider calls (behind a
   * proxy the API cannot see them). Unset: the request's own protocol and Host header.
   */
  publicBaseUrl?: string;
  /** Verifies and records a recording-status callback (@parley/telephony handleRecordingStatusCallback). */
  recordingStatus(request: RecordingStatusRequest): Promise<RecordingStatusOutcome>;
}

export const RECORDING_STATUS_PATH = '/api/v1/voice/recording-status';

/** The URL the provider signed: the public base URL, then the path and query exactly as received. */
export function signedUrlOf(request: FastifyRequest, publicBaseUrl: string | undefined): string {
  const base = publicBaseUrl ? publicBaseUrl.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;
  return `${base}${request.url}`;
}

/** Parses application/x-www-form-urlencoded bodies into URLSearchParams, in the calling plugin only. */
export function parseFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    },
  );
}

/** The form parameters of a provider callback (none when the body was not a form). */
export const paramsOf = (request: FastifyRequest) =>
  request.body instanceof URLSearchParams
    ? callbackParams(request.body)
    : callbackParams(new URLSearchParams());

const callbackBody = z
  .object({
    AccountSid: z
      .string()
      .describe('The provider account (must be registered: `parley telephony accounts add`)'),
    CallSid: z.string().describe('The call; becomes the recording’s callId'),
    RecordingSid: z.string().describe('The recording; becomes its recordingId'),
    RecordingStatus: z.enum(['in-progress', 'completed', 'absent', 'failed']),
    RecordingUrl: z
      .string()
      .optional()
      .describe('Without extension; files are fetched as `<RecordingUrl>.wav`'),
    RecordingDuration: z.string().optional().describe('Seconds'),
    RecordingChannels: z.enum(['1', '2']).optional(),
    RecordingStartTime: z.string().optional().describe('RFC 2822 date'),
    ErrorCode: z.string().optional(),
  })
  .describe('application/x-www-form-urlencoded; other parameters are accepted and covered by the signature');

const callbackReply = z.object({
  success: z.literal(true),
  data: z.object({
    recordingId: z.string(),
    status: z.string(),
    /** Ids of the facts this callback stands for (already recorded ones included). */
    eventIds: z.array(z.uuid()),
  }),
});

/**
 * The telephony provider's webhooks (spec 001 §4.4 family; docs/api.md): today the Twilio-style
 * recording-status callback. Form bodies are parsed here only (encapsulated to this plugin).
 */
export const voiceRoutes: FastifyPluginAsync<VoiceRouteOptions> = async (app, options) => {
  parseFormBodies(app);

  addRoute(app, {
    method: 'POST',
    url: RECORDING_STATUS_PATH,
    summary: 'Recording-status callback of the telephony provider (signed; called by the provider only)',
    description:
      'Twilio-style form callback signed with `X-Twilio-Signature` (HMAC-SHA1 of the full URL and the sorted ' +
      'form parameters, keyed with the account auth token). The URL must carry `?sessionId=<session>` as the ' +
      'platform set it when it started the recording. Idempotent: a repeated callback appends nothing. 401 ' +
      'UNAUTHORIZED for a missing or bad signature or an unknown account.',
    tags: ['voice'],
    operationId: 'voiceRecordingStatus',
    validation: 'document',
    querystring: z.object({ sessionId: z.string().describe('The Parley session the call belongs to') }),
    headers: z.object({ 'x-twilio-signature': z.string() }),
    body: callbackBody,
    consumes: ['application/x-www-form-urlencoded'],
    response: {
      200: callbackReply.describe('The callback was verified and its facts are recorded'),
      400: errorResponses.standard,
      401: errorResponses.standard,
      413: errorResponses.standard,
      415: errorResponses.standard,
    },
    handler: async (request) => {
      const params = paramsOf(request);
      const signature = request.headers['x-twilio-signature'];
      const outcome = await options.recordingStatus({
        url: signedUrlOf(request, options.publicBaseUrl),
        params,
        signature: typeof signature === 'string' ? signature : undefined,
      });
      return {
        success: true,
        data: { recordingId: outcome.recordingId, status: outcome.status, eventIds: outcome.eventIds },
      };
    },
  });
};
