import { errorResponses, requireCaller, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import type { VoiceConcurrencyLimiter, VoiceSettings } from '@parley/voice';

export interface VoiceCallerOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent: JWT bearer tokens are refused (401). */
  verifyJwt?: VerifyJwt | undefined;
  settings: VoiceSettings;
  /** Concurrent calls and rooms per tenant (Redis when REDIS_URL is set). */
  limiter: VoiceConcurrencyLimiter;
}

/**
 * Voice is a way to converse with a project's agents, so its routes need what the conversation
 * endpoints need: `chat:write` (scope chat.write), by platform API key or user JWT.
 */
export const VOICE_PERMISSION = 'chat:write';

export const voiceAuth = (options: VoiceCallerOptions) =>
  requireCaller({
    verifyApiKey: options.verifyApiKey,
    verifyJwt: options.verifyJwt,
    permission: VOICE_PERMISSION,
  });

export const voiceSecurity: Array<Record<string, string[]>> = [
  { apiKey: [] },
  { bearer: [] },
  { userJwt: [] },
];

export const callerErrors = {
  401: errorResponses.authentication,
  403: errorResponses.standard,
  429: errorResponses.standard,
};
