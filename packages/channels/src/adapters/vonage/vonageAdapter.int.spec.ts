import { generateKeyPairSync, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createVonageAdapter } from './vonageAdapter.js';

/**
 * Replies through Vonage's own SDKs against a local stand-in answering as Vonage's APIs do: the
 * Messages API (`POST /v1/messages`, the application's RS256 JWT, 202 `{ message_uuid }`, RFC 7807
 * problems) and the SMS API (`POST /sms/json`, basic auth, 200 with a per-message `status`).
 */
const NUMBER = '447700900000';
const USER = '447700900001';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const APP_ID = 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab';
const messagesConnection = {
  ...testConnection('sms', NUMBER, { signatureSecret: 's', applicationId: APP_ID, privateKey: PEM }),
  provider: 'vonage',
};
const smsConnection = {
  ...testConnection('sms', NUMBER, {
    signatureSecret: 's',
    apiKey: 'abcd1234',
    apiSecret: 'abcdef0123456789',
  }),
  provider: 'vonage',
  settings: { vonageApi: 'sms' },
};
const adapter = createVonageAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The claims of an RS256 token, when it verifies with the application's public key. */
function verifiedClaims(authorization: string | undefined): Record<string, unknown> | null {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
  const [header = '', claims = '', signature = ''] = token.split('.');
  const ok = verify(
    'RSA-SHA256',
    Buffer.from(`${header}.${claims}`),
    publicKey,
    Buffer.from(signature, 'base64url'),
  );
  return ok ? (JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>) : null;
}

const send = (connection: typeof messagesConnection, apiBaseUrl: string, text: string) => {
  const reply = { text };
  return adapter.sendResponse(
    {
      externalSessionKey: USER,
      reply,
      channelOutput: adapter.transformOutput?.(reply, connection),
      metadata: {},
      messageId: 'msg_01JDQ2X1K2L3M4N5P6Q7R8S9T0',
    },
    connection,
    { fetch, apiBaseUrl },
  );
};

describe('Vonage Messages API sends', () => {
  it('posts each part to /v1/messages with the application JWT; the uuids are the message ids', async () => {
    let n = 0;
    const standIn = await startStandIn(() => ({
      status: 202,
      body: { message_uuid: `aaaaaaaa-bbbb-4ccc-8ddd-00000000000${++n}` },
    }));
    closers.push(standIn.close);
    const result = await send(messagesConnection, standIn.baseUrl, `${'a'.repeat(1000)} Tail`);
    expect(result).toEqual({
      ok: true,
      externalMessageId: 'aaaaaaaa-bbbb-4ccc-8ddd-000000000002',
      externalMessageIds: ['aaaaaaaa-bbbb-4ccc-8ddd-000000000001', 'aaaaaaaa-bbbb-4ccc-8ddd-000000000002'],
    });
    expect(standIn.requests.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/v1/messages'],
      ['POST', '/v1/messages'],
    ]);
    for (const request of standIn.requests) {
      expect(verifiedClaims(request.headers.authorization)).toMatchObject({ application_id: APP_ID });
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(standIn.requests.map((r) => r.body)).toEqual([
      {
        channel: 'sms',
        message_type: 'text',
        to: USER,
        from: NUMBER,
        text: 'a'.repeat(1000),
        client_ref: 'msg_01JDQ2X1K2L3M4N5P6Q7R8S9T0',
      },
      {
        channel: 'sms',
        message_type: 'text',
        to: USER,
        from: NUMBER,
        text: 'Tail',
        client_ref: 'msg_01JDQ2X1K2L3M4N5P6Q7R8S9T0',
      },
    ]);
  });

  it('reports problems: 429 retryable, 422 permanent, unreachable retryable, no credentials in the error', async () => {
    const answers = [
      {
        status: 429,
        body: {
          type: 'https://developer.nexmo.com/api-errors#throttled',
          title: 'Rate Limit Hit',
          detail: 'Please wait, then retry your request',
        },
      },
      {
        status: 422,
        body: {
          type: 'https://developer.nexmo.com/api-errors/messages-olympus#1150',
          title: 'Invalid params',
          detail: 'The value of one or more parameters is invalid.',
        },
      },
    ];
    const standIn = await startStandIn(() => answers.shift() ?? { status: 202, body: { message_uuid: 'x' } });
    closers.push(standIn.close);
    const throttled = await send(messagesConnection, standIn.baseUrl, 'hi');
    expect(throttled).toEqual({
      ok: false,
      retryable: true,
      status: 429,
      error: 'vonage 429: Rate Limit Hit',
    });
    const invalid = await send(messagesConnection, standIn.baseUrl, 'hi');
    expect(invalid).toEqual({
      ok: false,
      retryable: false,
      status: 422,
      error: 'vonage 422: Invalid params',
    });
    const unreachable = await send(messagesConnection, 'http://127.0.0.1:1', 'hi');
    expect(unreachable).toMatchObject({ ok: false, retryable: true });
    expect(JSON.stringify([throttled, invalid, unreachable])).not.toContain('PRIVATE');
  });

  it('refuses a private key that is not an inline PEM key without calling Vonage (the SDK would read a file)', async () => {
    const standIn = await startStandIn(() => ({ status: 202, body: { message_uuid: 'x' } }));
    closers.push(standIn.close);
    const connection = {
      ...messagesConnection,
      credentials: { ...messagesConnection.credentials, privateKey: '/etc/hostname' },
    };
    expect(await send(connection, standIn.baseUrl, 'hi')).toMatchObject({ ok: false, retryable: false });
    expect(standIn.requests).toEqual([]);
  });
});

describe('Vonage SMS API sends', () => {
  it('posts to /sms/json with basic auth; every part’s message-id is kept; unicode when needed', async () => {
    const standIn = await startStandIn((request) => ({
      status: 200,
      body: {
        'message-count': '1',
        messages: [
          {
            to: USER,
            'message-id': `0A00000012345${(request.body as { text: string }).text.length}`,
            status: '0',
            'remaining-balance': '3.14159265',
            'message-price': '0.03330000',
            network: '23410',
          },
        ],
      },
    }));
    closers.push(standIn.close);
    const result = await send(smsConnection, standIn.baseUrl, 'Grüße');
    expect(result).toEqual({
      ok: true,
      externalMessageId: '0A000000123455',
      externalMessageIds: ['0A000000123455'],
    });
    const [request] = standIn.requests;
    expect(request?.path).toBe('/sms/json');
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from('abcd1234:abcdef0123456789').toString('base64')}`,
    );
    expect(request?.body).toEqual({
      to: USER,
      from: NUMBER,
      text: 'Grüße',
      'client-ref': 'msg_01JDQ2X1K2L3M4N5P6Q7R8S9T0',
      type: 'unicode',
    });
  });

  it('reads the per-message status: 1 (throttled) retryable, 4 (invalid credentials) permanent', async () => {
    const statuses = ['1', '4'];
    const standIn = await startStandIn(() => {
      const status = statuses.shift() ?? '0';
      return {
        status: 200,
        body: {
          'message-count': '1',
          messages: [{ status, 'error-text': status === '1' ? 'Throttled' : 'Bad Credentials' }],
        },
      };
    });
    closers.push(standIn.close);
    expect(await send(smsConnection, standIn.baseUrl, 'hi')).toEqual({
      ok: false,
      retryable: true,
      error: 'vonage sms status 1: Throttled',
    });
    const refused = await send(smsConnection, standIn.baseUrl, 'hi');
    expect(refused).toEqual({ ok: false, retryable: false, error: 'vonage sms status 4: Bad Credentials' });
    expect(JSON.stringify(refused)).not.toContain('abcdef0123456789');
  });
});
