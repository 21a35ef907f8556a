import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createSmsAdapter } from './smsAdapter.js';

const ACCOUNT_SID = 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
const NUMBER = '+15017122661';
const USER = '+15558675310';
const connection = testConnection('sms', NUMBER, { accountSid: ACCOUNT_SID, authToken: 'auth-token' });
const adapter = createSmsAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const created = (sid: string) => ({
  status: 201,
  body: {
    account_sid: ACCOUNT_SID,
    sid,
    status: 'queued',
    to: USER,
    from: NUMBER,
    api_version: '2010-04-01',
  },
});

describe('SMS sendResponse against a stand-in Messages API', () => {
  it('posts each part form-encoded to /2010-04-01/Accounts/{AccountSid}/Messages.json with basic auth', async () => {
    let n = 0;
    const standIn = await startStandIn(() => created(`SMout${++n}`));
    closers.push(standIn.close);
    const reply = { text: `${'a'.repeat(1600)} Tail` };
    const result = await adapter.sendResponse(
      {
        externalSessionKey: USER,
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: {},
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: standIn.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: 'SMout2' });
    const basic = `Basic ${Buffer.from(`${ACCOUNT_SID}:auth-token`).toString('base64')}`;
    expect(
      standIn.requests.map((r) => [r.method, r.path, r.headers.authorization, r.headers['content-type']]),
    ).toEqual([
      [
        'POST',
        `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`,
        basic,
        'application/x-www-form-urlencoded',
      ],
      [
        'POST',
        `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`,
        basic,
        'application/x-www-form-urlencoded',
      ],
    ]);
    expect(standIn.requests.map((r) => r.body)).toEqual([
      { To: USER, From: NUMBER, Body: 'a'.repeat(1600) },
      { To: USER, From: NUMBER, Body: 'Tail' },
    ]);
  });

  it('reports errors: 429 retryable, an invalid number permanent, unreachable retryable', async () => {
    const answers = [
      { status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 } },
      {
        status: 400,
        body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 },
      },
    ];
    const standIn = await startStandIn(() => answers.shift() ?? created('x'));
    closers.push(standIn.close);
    const send = (apiBaseUrl: string) =>
      adapter.sendResponse(
        { externalSessionKey: USER, reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        {
          fetch,
          apiBaseUrl,
        },
      );
    expect(await send(standIn.baseUrl)).toMatchObject({ ok: false, retryable: true, status: 429 });
    const permanent = await send(standIn.baseUrl);
    expect(permanent).toMatchObject({ ok: false, retryable: false, status: 400 });
    expect(JSON.stringify(permanent)).not.toContain('auth-token');
    expect(await send('http://127.0.0.1:1')).toMatchObject({ ok: false, retryable: true });
  });
});
