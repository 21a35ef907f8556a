import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createSlackAdapter, verifySlackSignature } from './slackAdapter.js';
import { markdownToMrkdwn, SLACK_LIMITS, toSlackOutput } from './slackTransform.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = new Date('2026-11-21T10:00:00.000Z');
const NOW_SECONDS = NOW.getTime() / 1000;
const adapter = createSlackAdapter({ now: () => NOW });
const connection = testConnection('slack', 'T061EG9R6:A0KRD7HC3', {
  botToken: 'xoxb-1',
  signingSecret: SECRET,
});

const sign = (raw: string, timestamp: number, secret = SECRET) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${raw}`).digest('hex')}`;

const request = (
  raw: string,
  options: { timestamp?: number; secret?: string; contentType?: string } = {},
): InboundRequest => {
  const timestamp = options.timestamp ?? NOW_SECONDS;
  return {
    headers: {
      'content-type': options.contentType ?? 'application/json',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': sign(raw, timestamp, options.secret),
    },
    body: undefined,
    rawBody: Buffer.from(raw),
    url: 'https://parley.example/api/v1/channels/slack/webhook',
    query: {},
  };
};

// Shapes from the Slack Events API, slash command and block_actions references.
const eventCallback = (event: Record<string, unknown>) =>
  JSON.stringify({
    token: 'XXYYZZ',
    team_id: 'T061EG9R6',
    api_app_id: 'A0KRD7HC3',
    event,
    type: 'event_callback',
    event_id: 'Ev0PV52K21',
    event_time: 1763719200,
    authorizations: [{ team_id: 'T061EG9R6', user_id: 'U0BOT', is_bot: true }],
  });
const channelMessage = {
  type: 'message',
  channel: 'C2147483705',
  user: 'U2147483697',
  text: 'Hello world',
  ts: '1763719200.000200',
  event_ts: '1763719200.000200',
  channel_type: 'channel',
};

describe('Slack verifyRequest', () => {
  const raw = eventCallback(channelMessage);

  it('accepts a correctly signed request within five minutes', () => {
    expect(adapter.verifyRequest(request(raw), connection)).toBe(true);
    expect(adapter.verifyRequest(request(raw, { timestamp: NOW_SECONDS - 299 }), connection)).toBe(true);
  });

  it('refuses a bad signature, a tampered body and a replayed (stale) request', () => {
    expect(adapter.verifyRequest(request(raw, { secret: 'wrong' }), connection)).toBe(false);
    expect(
      adapter.verifyRequest(
        { ...request(raw), rawBody: Buffer.from(raw.replace('Hello', 'Hullo')) },
        connection,
      ),
    ).toBe(false);
    expect(adapter.verifyRequest(request(raw, { timestamp: NOW_SECONDS - 301 }), connection)).toBe(false);
    expect(adapter.verifyRequest(request(raw, { timestamp: NOW_SECONDS + 301 }), connection)).toBe(false);
    expect(adapter.verifyRequest({ ...request(raw), headers: {} }, connection)).toBe(false);
    expect(adapter.verifyRequest(request(raw), { ...connection, credentials: {} })).toBe(false);
  });

  it('never throws; accepts exactly a matching signature with a fresh timestamp (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.option(fc.oneof(fc.string(), fc.integer({ min: 0, max: 2 * NOW_SECONDS }).map(String)), {
          nil: undefined,
        }),
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        fc.boolean(),
        (body, timestamp, signature, secret, signCorrectly) => {
          const rawBody = Buffer.from(body);
          const good =
            timestamp === undefined
              ? undefined
              : `v0=${createHmac('sha256', secret)
                  .update(Buffer.concat([Buffer.from(`v0:${timestamp}:`), rawBody]))
                  .digest('hex')}`;
          const sent = signCorrectly ? good : signature;
          const result = verifySlackSignature({
            rawBody,
            timestamp,
            signature: sent,
            signingSecret: secret,
            nowSeconds: NOW_SECONDS,
          });
          const fresh =
            timestamp !== undefined &&
            /^\d{1,15}$/.test(timestamp) &&
            Math.abs(NOW_SECONDS - Number(timestamp)) <= 300;
          expect(result).toBe(secret !== '' && fresh && sent !== undefined && sent === good);
        },
      ),
    );
  });
});

describe('Slack parseIncoming', () => {
  it('normalizes a channel message into its thread session (spec 001 §2.1)', () => {
    expect(adapter.parseIncoming(request(eventCallback(channelMessage)), connection)).toEqual([
      {
        externalMessageId: 'C2147483705:1763719200.000200',
        externalSessionKey: 'C2147483705:1763719200.000200',
        text: 'Hello world',
        metadata: {
          teamId: 'T061EG9R6',
          channel: 'C2147483705',
          channelType: 'channel',
          ts: '1763719200.000200',
          threadTs: '1763719200.000200',
          userId: 'U2147483697',
        },
        timestamp: '2025-11-21T10:00:00.000Z',
        channelUserId: 'U2147483697',
      },
    ]);
  });

  it('keeps thread replies in the thread session and direct messages per conversation', () => {
    const reply = { ...channelMessage, ts: '1763719260.000300', thread_ts: '1763719200.000200' };
    const [inThread] = adapter.parseIncoming(request(eventCallback(reply)), connection);
    expect(inThread?.externalSessionKey).toBe('C2147483705:1763719200.000200');
    expect(inThread?.metadata.threadTs).toBe('1763719200.000200');
    const dm = { ...channelMessage, channel: 'D024BE91L', channel_type: 'im' };
    const [direct] = adapter.parseIncoming(request(eventCallback(dm)), connection);
    expect(direct?.externalSessionKey).toBe('D024BE91L');
    expect(direct?.metadata.threadTs).toBeUndefined();
  });

  it('ignores bot messages, edits, joins, url_verification and other events', () => {
    const ignored = [
      eventCallback({ ...channelMessage, subtype: 'bot_message', bot_id: 'B123', user: undefined }),
      eventCallback({ ...channelMessage, bot_id: 'B123', app_id: 'A0KRD7HC3' }),
      eventCallback({ ...channelMessage, subtype: 'message_changed', hidden: true }),
      eventCallback({ ...channelMessage, subtype: 'channel_join' }),
      eventCallback({ type: 'reaction_added', user: 'U1', reaction: 'thumbsup', item: {} }),
      JSON.stringify({
        token: 'x',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
        type: 'url_verification',
      }),
      'not json',
    ];
    for (const raw of ignored) expect(adapter.parseIncoming(request(raw), connection)).toEqual([]);
  });

  it('normalizes a slash command (form-encoded)', () => {
    const raw = new URLSearchParams({
      token: 'gIkuvaNzQIHg97ATvDxqgjtO',
      team_id: 'T061EG9R6',
      team_domain: 'example',
      channel_id: 'C2147483705',
      channel_name: 'test',
      user_id: 'U2147483697',
      user_name: 'Steve',
      command: '/ask',
      text: 'where is my order?',
      api_app_id: 'A0KRD7HC3',
      response_url: 'https://hooks.slack.com/commands/1234/5678',
      trigger_id: '13345224609.738474920.8088930838d88f008e0',
    }).toString();
    const req = request(raw, { contentType: 'application/x-www-form-urlencoded' });
    expect(adapter.connectionIdentifier(req)).toBe('T061EG9R6:A0KRD7HC3');
    expect(adapter.parseIncoming(req, connection)).toEqual([
      {
        externalMessageId: 'slash:13345224609.738474920.8088930838d88f008e0',
        externalSessionKey: 'C2147483705:U2147483697',
        text: 'where is my order?',
        metadata: { teamId: 'T061EG9R6', channel: 'C2147483705', command: '/ask', userId: 'U2147483697' },
        timestamp: NOW.toISOString(),
        channelUserId: 'U2147483697',
      },
    ]);
  });

  it('gives block_actions button clicks and static_select choices as action events', () => {
    const payload = {
      type: 'block_actions',
      user: { id: 'U2147483697', username: 'steve', team_id: 'T061EG9R6' },
      api_app_id: 'A0KRD7HC3',
      team: { id: 'T061EG9R6', domain: 'example' },
      container: {
        type: 'message',
        message_ts: '1763719230.000400',
        channel_id: 'C2147483705',
        is_ephemeral: false,
      },
      channel: { id: 'C2147483705', name: 'test' },
      message: {
        type: 'message',
        ts: '1763719230.000400',
        thread_ts: '1763719200.000200',
        bot_id: 'B1',
        text: 'Pick',
      },
      trigger_id: '66.1',
      response_url: 'https://hooks.slack.com/actions/T/1/2',
      actions: [
        {
          type: 'button',
          action_id: 'confirm',
          block_id: 'b1',
          text: { type: 'plain_text', text: 'Confirm' },
          value: 'yes',
          action_ts: '1763719240.000001',
        },
        {
          type: 'static_select',
          action_id: 'size',
          block_id: 'b1',
          selected_option: { text: { type: 'plain_text', text: 'Medium' }, value: 'm' },
          placeholder: { type: 'plain_text', text: 'Size' },
          action_ts: '1763719241.000001',
        },
      ],
    };
    const req = request(`payload=${encodeURIComponent(JSON.stringify(payload))}`, {
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(adapter.connectionIdentifier(req)).toBe('T061EG9R6:A0KRD7HC3');
    const parsed = adapter.parseIncoming(req, connection);
    expect(
      parsed.map((m) => [
        m.externalMessageId,
        m.externalSessionKey,
        m.text,
        m.actionEvent,
        m.metadata.threadTs,
      ]),
    ).toEqual([
      [
        'action:C2147483705:1763719230.000400:1763719240.000001',
        'C2147483705:1763719200.000200',
        'Confirm',
        { actionId: 'confirm', value: 'yes', type: 'button', title: 'Confirm', blockId: 'b1' },
        '1763719200.000200',
      ],
      [
        'action:C2147483705:1763719230.000400:1763719241.000001',
        'C2147483705:1763719200.000200',
        'Medium',
        { actionId: 'size', value: 'm', type: 'select', title: 'Medium', blockId: 'b1' },
        '1763719200.000200',
      ],
    ]);
  });
});

describe('Slack challenge', () => {
  it('answers url_verification with the challenge', async () => {
    const raw = JSON.stringify({ token: 'x', challenge: 'abc123', type: 'url_verification' });
    const lookup = async () => null;
    expect(await adapter.challenge?.(request(raw), lookup)).toEqual({ status: 200, body: 'abc123' });
    expect(await adapter.challenge?.(request(eventCallback(channelMessage)), lookup)).toBeNull();
  });
});

describe('Slack transformOutput', () => {
  it('converts markdown to mrkdwn', () => {
    expect(markdownToMrkdwn('**Bold** and [docs](https://example.com) ~~old~~ <b> & co\n## Title')).toBe(
      '*Bold* and <https://example.com|docs> ~old~ &lt;b&gt; &amp; co\n*Title*',
    );
  });

  it('renders buttons and selects as an actions block', () => {
    expect(
      toSlackOutput({
        text: 'Ready?',
        actionSet: {
          elements: [
            { type: 'button', id: 'go', label: 'Go', value: 'go-now', style: 'primary' },
            { type: 'select', id: 'size', label: 'Size', options: [{ label: 'Small', value: 's' }] },
          ],
        },
      }),
    ).toEqual({
      messages: [
        {
          text: 'Ready?',
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: 'Ready?' } },
            {
              type: 'actions',
              elements: [
                {
                  type: 'button',
                  action_id: 'go',
                  text: { type: 'plain_text', text: 'Go', emoji: true },
                  value: 'go-now',
                  style: 'primary',
                },
                {
                  type: 'static_select',
                  action_id: 'size',
                  placeholder: { type: 'plain_text', text: 'Size', emoji: true },
                  options: [{ text: { type: 'plain_text', text: 'Small', emoji: true }, value: 's' }],
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('stays within Block Kit limits (property)', () => {
    // Up to 120 options, past the schema's 100, so that the cut to Slack's 100 is exercised.
    const replies = outgoingReplyArbitrary({ types: ['button', 'select'], maxOptions: 120, valid: false });
    fc.assert(
      fc.property(replies, (reply) => {
        const output = toSlackOutput(reply);
        for (const m of output.messages) {
          expect(Array.from(m.text).length).toBeLessThanOrEqual(SLACK_LIMITS.messageText);
          expect((m.blocks ?? []).length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
          for (const block of m.blocks ?? []) {
            if (block.type === 'section')
              expect(Array.from(block.text.text).length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
            else {
              expect(block.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.actionsElements);
              for (const e of block.elements) {
                if (e.type === 'button')
                  expect(Array.from(e.text.text).length).toBeLessThanOrEqual(SLACK_LIMITS.buttonText);
                else {
                  expect(e.options.length).toBeLessThanOrEqual(SLACK_LIMITS.selectOptions);
                  for (const o of e.options)
                    expect(Array.from(o.value).length).toBeLessThanOrEqual(SLACK_LIMITS.optionValue);
                }
              }
            }
          }
        }
      }),
    );
  });
});
