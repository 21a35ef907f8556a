import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';

/** The stream parameter carrying the media stream's token (the provider sends it back in `start`). */
export const STREAM_TOKEN_PARAMETER = 'streamToken';

const material = (input: { callSid: string; projectId: string; sessionId?: string | undefined }) =>
  JSON.stringify(['parley-media-stream', input.callSid, input.projectId, input.sessionId ?? null]);

/**
 * What proves a media WebSocket comes from a call Parley connected: HMAC-SHA256, keyed with the
 * provider account's auth token, over the call and the stream parameters the connect answer set
 * (the provider echoes them in the stream's `start` message; the WebSocket URL has no query).
 */
export function mediaStreamToken(
  authToken: string,
  input: { callSid: string; projectId: string; sessionId?: string | undefined },
): string {
  return createHmac('sha256', authToken).update(material(input)).digest('base64url');
}

export function verifyMediaStreamToken(
  authToken: string,
  input: { callSid: string; projectId: string; sessionId?: string | undefined },
  token: string | undefined,
): boolean {
  if (token === undefined) return false;
  return constantTimeEqual(mediaStreamToken(authToken, input), token);
}
