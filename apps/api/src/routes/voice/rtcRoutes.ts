import { addRoute, callerReaches, errorResponses, HttpError, tenantContextRequired } from '@parley/http';
import {
  issueRoomToken,
  liveKitRoomService,
  parseRoomTokenInput,
  type RoomService,
  RoomServiceUnavailableError,
  type VoiceConcurrencyLimiter,
  type VoiceSettings,
  type VoiceSlot,
} from '@parley/voice';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { callerErrors, type VoiceCallerOptions, voiceAuth, voiceSecurity } from './voiceCommon.js';
import {
  invalidField,
  speechCredentialsNotFound,
  voiceLimitReached,
  voiceNotConfigured,
} from './voiceErrors.js';

export interface RtcVoiceRouteOptions extends VoiceCallerOptions {
  /**
   * Whether the tenant has speech services for an agent participant (§7: 503 when not). Default:
   * realtime mode (a native audio model) or both a speech-to-text and a text-to-speech engine.
   */
  speechAvailable?: (tenantId: string) => Promise<boolean>;
  /** Creates the room and dispatches the agent. Default: LiveKit's RoomServiceClient at voice.rtc.url. */
  roomService?: RoomService;
}

/** How long a room lives without participants (the room service's emptyTimeout), seconds. */
const EMPTY_TIMEOUT_SECONDS = 300;

const id = (max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .max(max);

const tokenBody = z.object({
  sessionId: id(128).describe('The Parley session the room is for'),
  projectId: id(128).describe('A project the caller reaches'),
  agentName: id(64).optional().describe('Dispatches this agent into the room as a participant'),
  deploymentId: id(128).optional(),
});

const tokenReply = z.object({
  success: z.literal(true),
  data: z.object({
    token: z.string().describe('Room service access token (JWT), valid voice.rtc.tokenTtlSeconds'),
    roomName: z.string().describe('`<tenantId>-<projectId>-<sessionId>`'),
    url: z.string().describe('The room service URL the client connects to'),
    identity: z.string().describe('`user-<sessionId>`'),
  }),
});

const capabilitiesReply = z.object({
  success: z.literal(true),
  data: z.object({
    enabled: z.boolean().describe('voice.enabled'),
    configured: z.boolean().describe('voice.rtc.url, apiKey and apiSecret are all set'),
  }),
});

const defaultSpeechAvailable = (settings: VoiceSettings) => async () =>
  settings.mode === 'realtime' || (settings.sttEngine !== undefined && settings.ttsEngine !== undefined);

/**
 * The real-time room service (spec 001 §4.5): `/api/v1/<vendor>/capabilities` and `/token`, the
 * vendor segment from VOICE_RTC_VENDOR (default `livekit`). Errors of §7.
 */
export const rtcVoiceRoutes: FastifyPluginAsync<RtcVoiceRouteOptions> = async (app, options) => {
  const { settings, limiter } = options;
  const base = `/api/v1/${settings.rtc.vendor}`;
  const speechAvailable = options.speechAvailable ?? defaultSpeechAvailable(settings);
  const credentialsOfRooms = settings.rtc.credentials;
  const roomService =
    options.roomService ?? (credentialsOfRooms === null ? null : liveKitRoomService(credentialsOfRooms));
  const common = { tags: ['voice'], security: voiceSecurity, preHandler: voiceAuth(options) };

  addRoute(app, {
    ...common,
    method: 'GET',
    url: `${base}/capabilities`,
    summary: 'Whether real-time voice is enabled and its room service configured',
    operationId: 'rtcVoiceCapabilities',
    response: { 200: capabilitiesReply, ...callerErrors },
    handler: async () => ({
      success: true as const,
      data: { enabled: settings.enabled, configured: settings.rtc.credentials !== null },
    }),
  });

  addRoute(app, {
    ...common,
    method: 'POST',
    url: `${base}/token`,
    summary: "A token that joins the session's tenant-scoped room",
    description:
      'Fields: letters, digits, `_` or `-`. Checks in order: credential (401/403), body (400 INVALID_SESSION_ID, ' +
      'INVALID_PROJECT_ID, INVALID_AGENT_NAME, INVALID_DEPLOYMENT_ID), tenant (403 TENANT_CONTEXT_REQUIRED: the ' +
      "caller's tenant does not hold the project), configuration (503 VOICE_NOT_CONFIGURED; with agentName, 503 " +
      'VOICE_CREDENTIALS_NOT_FOUND without speech services), then the concurrent rooms and calls of the tenant ' +
      '(429 VOICE_SESSION_LIMIT_REACHED). A room is counted for voice.realtime.maxSessionDurationMs after its ' +
      'latest token. The room is then created through the room service (CreateRoom; an existing room is kept) ' +
      'and, with agentName, the agent dispatched into it once (CreateDispatch); 503 ROOM_SERVICE_UNAVAILABLE ' +
      'when the room service fails or does not answer (the room slot is given back).',
    operationId: 'rtcVoiceToken',
    validation: 'document',
    body: tokenBody,
    response: {
      200: tokenReply,
      400: errorResponses.standard,
      ...callerErrors,
      503: errorResponses.standard,
    },
    handler: async (request) => {
      const parsed = parseRoomTokenInput(request.body);
      if (!parsed.ok) throw invalidField(parsed.field, parsed.message);
      const input = parsed.input;
      const caller = request.caller;
      // The caller's tenant (a JWT's is checked to exist) must hold the project: else the room would
      // be named for, and counted against, a tenant that does not own it.
      if (!caller || !callerReaches(caller, input.projectId)) {
        throw tenantContextRequired();
      }
      const credentials = settings.rtc.credentials;
      if (!settings.enabled || credentials === null) throw voiceNotConfigured();
      if (input.agentName !== undefined && !(await speechAvailable(caller.tenantId))) {
        throw speechCredentialsNotFound();
      }
      const issued = await issueRoomToken({
        credentials,
        tenantId: caller.tenantId,
        request: input,
        ttlSeconds: settings.rtc.tokenTtlSeconds,
      });
      const member = `room:${issued.roomName}`;
      const decision = await limiter.admit(
        caller.tenantId,
        roomSlots(settings, member),
        settings.realtime.maxSessionDurationMs,
      );
      if (!decision.admitted) throw voiceLimitReached(decision);
      try {
        await roomService?.ensureRoom({
          roomName: issued.roomName,
          emptyTimeoutSeconds: EMPTY_TIMEOUT_SECONDS,
          metadata: JSON.stringify({ tenantId: caller.tenantId, ...input }),
          agentName: input.agentName,
        });
      } catch (err) {
        if (!(err instanceof RoomServiceUnavailableError)) throw err;
        await releaseRoom(limiter, caller.tenantId, member);
        request.log.warn({ err }, 'room service unavailable');
        throw new HttpError(err.code, 503, err.message, { retryAfterMs: 5_000 });
      }
      return { success: true as const, data: issued };
    },
  });
};

/** Gives back the slots roomSlots took (the token was not issued). */
async function releaseRoom(limiter: VoiceConcurrencyLimiter, tenantId: string, member: string) {
  await limiter.release(tenantId, 'rooms', member, 'global');
  await limiter.release(tenantId, 'rooms', member);
  await limiter.release(tenantId, 'calls', member);
}

/**
 * What a room counts against: the rooms of every tenant together (spec 000 §8: global), the
 * tenant's own rooms when a per-tenant limit is set, and the tenant's voice calls.
 */
function roomSlots(settings: VoiceSettings, member: string): VoiceSlot[] {
  const { maxConcurrentRooms, maxConcurrentRoomsPerTenant } = settings.rtc;
  return [
    { pool: 'rooms', scope: 'global', member, limit: maxConcurrentRooms },
    ...(maxConcurrentRoomsPerTenant === null
      ? []
      : [{ pool: 'rooms' as const, member, limit: maxConcurrentRoomsPerTenant }]),
    { pool: 'calls', member, limit: settings.maxConcurrentCalls },
  ];
}
