import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueTelephonyClientToken } from './clientToken.js';

const credentials = {
  accountSid: 'AC0123456789abcdef0123456789abcdef',
  apiKeySid: 'SK0123456789abcdef0123456789abcdef',
  apiKeySecret: 'telephony-api-key-secret',
};
const secret = new TextEncoder().encode(credentials.apiKeySecret);

describe('issueTelephonyClientToken', () => {
  it('signs a Twilio-style access token with a voice grant', async () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    const issued = await issueTelephonyClientToken({
      credentials: { ...credentials, appSid: 'AP0123' },
      sessionId: 'ses_1',
      projectId: 'proj_1',
      ttlSeconds: 600,
      now,
    });
    expect(issued).toMatchObject({ identity: 'parley-ses_1', sessionId: 'ses_1' });
    expect(decodeProtectedHeader(issued.token)).toEqual({ alg: 'HS256', typ: 'JWT', cty: 'twilio-fpa;v=1' });
    const { payload } = await jwtVerify(issued.token, secret, { currentDate: now });
    const iat = now.getTime() / 1000;
    expect(payload).toEqual({
      jti: `${credentials.apiKeySid}-${iat}`,
      iss: credentials.apiKeySid,
      sub: credentials.accountSid,
      iat,
      nbf: iat,
      exp: iat + 600,
      grants: {
        identity: 'parley-ses_1',
        voice: {
          incoming: { allow: true },
          outgoing: { application_sid: 'AP0123', params: { sessionId: 'ses_1', projectId: 'proj_1' } },
        },
      },
    });
  });

  it('grants incoming calls only without an outgoing application, and expires', async () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    const issued = await issueTelephonyClientToken({
      credentials,
      sessionId: 's',
      projectId: 'p',
      ttlSeconds: 60,
      now,
    });
    const { payload } = await jwtVerify(issued.token, secret, { currentDate: now });
    expect(payload.grants).toEqual({ identity: 'parley-s', voice: { incoming: { allow: true } } });
    await expect(
      jwtVerify(issued.token, secret, { currentDate: new Date(now.getTime() + 61_000) }),
    ).rejects.toThrow(/exp/);
  });
});
