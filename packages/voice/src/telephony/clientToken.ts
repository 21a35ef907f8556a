import { SignJWT } from 'jose';
import type { TelephonyTokenCredentials } from '../voiceSettings.js';

export interface TelephonyClientToken {
  token: string;
  identity: string;
  sessionId: string;
}

/** The caller's identity as the provider's client SDK registers it: one per session. */
export const clientIdentityOf = (sessionId: string): string => `parley-${sessionId}`;

/**
 * A short-lived token for the telephony provider's client SDK, in the provider's access-token shape
 * (Twilio AccessToken: HS256 with the API key secret, header `cty: twilio-fpa;v=1`, `iss` the API
 * key SID, `sub` the account SID, `jti` `<key SID>-<iat>`, and `grants` with the identity and a
 * voice grant). The voice grant allows incoming calls to the identity and, with an outgoing
 * application, outgoing calls whose parameters carry the session and project, so that `/connect`
 * learns which session a call belongs to.
 */
export async function issueTelephonyClientToken(input: {
  credentials: TelephonyTokenCredentials;
  sessionId: string;
  projectId: string;
  ttlSeconds: number;
  now?: Date;
}): Promise<TelephonyClientToken> {
  const { credentials } = input;
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const identity = clientIdentityOf(input.sessionId);
  const voice: Record<string, unknown> = { incoming: { allow: true } };
  if (credentials.appSid !== undefined) {
    voice.outgoing = {
      application_sid: credentials.appSid,
      params: { sessionId: input.sessionId, projectId: input.projectId },
    };
  }
  const token = await new SignJWT({ grants: { identity, voice } })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', cty: 'twilio-fpa;v=1' })
    .setJti(`${credentials.apiKeySid}-${iat}`)
    .setIssuer(credentials.apiKeySid)
    .setSubject(credentials.accountSid)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .sign(new TextEncoder().encode(credentials.apiKeySecret));
  return { token, identity, sessionId: input.sessionId };
}
