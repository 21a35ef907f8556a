import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createSlackAdapter } from './slackAdapter.js';

const connection = testConnection('slack', 'T061EG9R6:A0KRD7HC3', {
  botToken: 'xoxb-test',
  signingSecret: 's',
});
const adapter = createSlackAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('Slack sendResponse against a stand-in Web API', () => {
  it('posts chat.postMessage with blocks into the thread, bearer token, JSON', async () => {
    const standIn = await startStandIn(() => ({
      status: 200,
      body: { ok: true, channel: 'C2147483705', ts: '1763719300.000500', message: {} },
    }));
    closers.push(standIn.close);
    const reply = {
      text: 'Confirm the **refund**?',
      actionSet: { elements: [{ type: 'button' as const, id: 'confirm', label: 'Confirm' }] },
    };
    const result = await adapter.sendResponse(
      {
        externalSessionKey: 'C2147483705:1763719200.000200',
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: { channel: 'C2147483705', threadTs: '1763719200.000200' },
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: standIn.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: 'C2147483705:1763719300.000500' });
    const [sent] = standIn.requests;
    expect([sent?.method, sent?.path, sent?.headers.authorization, sent?.headers['content-type']]).toEqual([
      'POST',
      '/chat.postMessage',
      'Bearer xoxb-test',
      'application/json; charset=utf-8',
    ]);
    expect(sent?.body).toEqual({
      channel: 'C2147483705',
      thread_ts: '1763719200.000200',
      text: 'Confirm the *refund*?',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Confirm the *refund*?' } },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: 'confirm',
              text: { type: 'plain_text', text: 'Confirm', emoji: true },
              value: 'confirm',
            },
          ],
        },
      ],
    });
  });

  it('treats ok:false ratelimited as retryable and channel_not_found as permanent', async () => {
    const answers = [
      { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '30' } },
      { status: 200, body: { ok: false, error: 'channel_not_found' } },
    ];
    const standIn = await startStandIn(
      () => answers.shift() ?? { status: 200, body: { ok: true, ts: '1.2' } },
    );
    closers.push(standIn.close);
    const send = () =>
      adapter.sendResponse(
        { externalSessionKey: 'D024BE91L', reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        { fetch, apiBaseUrl: standIn.baseUrl },
      );
    expect(await send()).toEqual({
      ok: false,
      retryable: true,
      status: 429,
      error: 'slack 429: ratelimited',
    });
    expect(await send()).toEqual({
      ok: false,
      retryable: false,
      status: 200,
      error: 'slack 200: channel_not_found',
    });
    expect(standIn.requests[0]?.body).toEqual({ channel: 'D024BE91L', text: 'hi' });
  });
});
