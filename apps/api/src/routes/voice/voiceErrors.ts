import { HttpError } from '@parley/http';
import { ParleyError } from '@parley/platform';
import type { AdmitDecision, RoomTokenInputField } from '@parley/voice';

/** The §7 error of each bad field of the real-time token body. */
const FIELD_CODES: Record<RoomTokenInputField, string> = {
  sessionId: 'INVALID_SESSION_ID',
  projectId: 'INVALID_PROJECT_ID',
  agentName: 'INVALID_AGENT_NAME',
  deploymentId: 'INVALID_DEPLOYMENT_ID',
};

export const invalidField = (field: RoomTokenInputField, message: string) =>
  new HttpError(FIELD_CODES[field], 400, message);

export const voiceNotConfigured = () =>
  new HttpError('VOICE_NOT_CONFIGURED', 503, 'voice service not configured');

export const speechCredentialsNotFound = () =>
  new HttpError(
    'VOICE_CREDENTIALS_NOT_FOUND',
    503,
    'voice credentials for speech services not found for the tenant',
  );

export const voiceLimitReached = (decision: Extract<AdmitDecision, { admitted: false }>) =>
  new HttpError('VOICE_SESSION_LIMIT_REACHED', 429, 'maximum concurrent voice sessions reached', {
    retryAfterMs: decision.retryAfterMs,
    details: { pool: decision.pool },
  });

/** A ParleyError of the call webhooks, with 429's Retry-After. */
export function rethrowLimit(err: unknown): never {
  if (err instanceof ParleyError && err.status === 429) {
    const retryAfterMs = Number(err.details?.retryAfterMs ?? 0);
    throw new HttpError(err.code, 429, err.message, { retryAfterMs });
  }
  throw err;
}
