import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  APP_ID,
  CHANNEL_THREAD,
  channelMention,
  teamsConnection as connection,
  personalMessage,
  request,
  SERVICE_URL,
  TENANT_ID,
} from '../../testing/msteams/msteamsTestActivities.js';
import { createMsTeamsAdapter } from './msteamsAdapter.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const adapter = createMsTeamsAdapter({ now: () => NOW });

describe('Teams parseIncoming', () => {
  it('normalizes a personal chat message (spec 001 §2.1) with what the reply needs', () => {
    expect(adapter.parseIncoming(request(personalMessage), connection)).toEqual([
      {
        externalMessageId: `${personalMessage.conversation.id}:1485983408511`,
        externalSessionKey: personalMessage.conversation.id,
        text: 'Where is my order?',
        metadata: {
          serviceUrl: SERVICE_URL,
          conversationId: personalMessage.conversation.id,
          conversationType: 'personal',
          replyToId: '1485983408511',
          userId: personalMessage.from.id,
          userName: 'Megan Bowen',
          aadObjectId: personalMessage.from.aadObjectId,
          tenantId: TENANT_ID,
          botId: `28:${APP_ID}`,
        },
        timestamp: '2026-11-21T10:00:07.437Z',
        channelUserId: personalMessage.from.id,
      },
    ]);
  });

  it('strips the bot’s @mention in a channel and keeps the thread as the session', () => {
    const [message] = adapter.parseIncoming(request(channelMention), connection);
    expect(message?.text).toBe('summarise the <b>incident</b> for @Adele Vance');
    expect(message?.externalSessionKey).toBe(CHANNEL_THREAD);
    expect(message?.externalMessageId).toBe('19:e2c1c1b1f9a64d1f9f3d5b3e1f3b7a1c@thread.tacv2:1763719200123');
    expect(message?.metadata).toMatchObject({ conversationId: CHANNEL_THREAD, conversationType: 'channel' });
    // A message that is only the mention carries nothing to answer.
    expect(
      adapter.parseIncoming(request({ ...channelMention, text: '<at>Parley Bot</at> ' }), connection),
    ).toEqual([]);
  });

  it('gives an Action.Submit of its card as an action event, with the inputs', () => {
    const submit = {
      ...personalMessage,
      id: '1485983500000',
      replyToId: '1485983450000',
      text: undefined,
      value: {
        parley: { id: 'confirm', value: 'yes', label: 'Confirm' },
        'select:size': 'L',
        'text:note': 'asap',
      },
    };
    const [message] = adapter.parseIncoming(request(submit), connection);
    expect(message?.text).toBe('Confirm');
    expect(message?.actionEvent).toEqual({
      actionId: 'confirm',
      value: 'yes',
      type: 'button',
      title: 'Confirm',
      inputs: { size: 'L', note: 'asap' },
    });
    expect(message?.metadata.replyToId).toBe('1485983500000');
    const formOnly = { ...submit, value: { parley: {}, 'select:size': 'M' } };
    expect(adapter.parseIncoming(request(formOnly), connection)[0]?.actionEvent).toEqual({
      actionId: 'size',
      value: 'M',
      type: 'select',
      inputs: { size: 'M' },
    });
  });

  it('gives an adaptiveCard/action invoke (Action.Execute) as an action event', () => {
    const invoke = {
      ...personalMessage,
      type: 'invoke',
      name: 'adaptiveCard/action',
      id: 'f:7428950386542218394',
      text: undefined,
      value: {
        action: { type: 'Action.Execute', verb: 'x', data: { parley: { id: 'retry', label: 'Retry' } } },
        trigger: 'manual',
      },
    };
    expect(adapter.parseIncoming(request(invoke), connection)[0]?.actionEvent).toEqual({
      actionId: 'retry',
      value: 'retry',
      type: 'button',
      title: 'Retry',
    });
  });

  it('ignores conversationUpdate, typing, reactions, other invokes, the bot itself and other channels', () => {
    const ignored = [
      {
        ...personalMessage,
        type: 'conversationUpdate',
        text: undefined,
        membersAdded: [{ id: `28:${APP_ID}` }],
      },
      { ...personalMessage, type: 'typing', text: undefined },
      { ...personalMessage, type: 'messageReaction', reactionsAdded: [{ type: 'like' }] },
      { ...personalMessage, type: 'invoke', name: 'composeExtension/query', value: {} },
      { ...personalMessage, from: { id: `28:${APP_ID}`, name: 'Parley Bot' } },
      { ...personalMessage, channelId: 'webchat' },
      { ...personalMessage, text: '', attachments: [{ contentType: 'image/*', contentUrl: 'https://x' }] },
      { ...personalMessage, text: undefined, value: { someOtherCard: true } },
    ];
    for (const activity of ignored) expect(adapter.parseIncoming(request(activity), connection)).toEqual([]);
  });

  it('never throws on arbitrary bodies; what it keeps is keyed by the conversation (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({
            ...Object.fromEntries(Object.entries(personalMessage).map(([k, v]) => [k, fc.constant(v)])),
            text: fc.string(),
            entities: fc.jsonValue(),
            value: fc.jsonValue(),
          }),
        ),
        (body) => {
          const messages = adapter.parseIncoming(request(body), connection);
          for (const message of messages) {
            expect(message.externalSessionKey).toBe(personalMessage.conversation.id);
            expect(message.text.length > 0 || message.actionEvent !== undefined).toBe(true);
          }
        },
      ),
    );
  });
});

describe('Teams connectionIdentifier', () => {
  it('reads the app id from recipient.id without 28:', () => {
    expect(adapter.connectionIdentifier(request(personalMessage))).toBe(APP_ID);
    expect(adapter.connectionIdentifier(request({ type: 'message' }))).toBeNull();
    expect(adapter.connectionIdentifier({ ...request(null), rawBody: Buffer.from('not json') })).toBeNull();
  });
});
