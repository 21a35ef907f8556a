import { randomBytes } from 'node:crypto';
import { createContactCenterAdapter, createVxmlAdapter, deliveryEventId } from '@parley/channels';
import { xmlWellFormedError } from '@parley/channels/testing';
import type { RecordedEvent } from '@parley/eventstore';
import type { Runtime } from '@parley/runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ChannelWorld, createChannelWorld } from '../../testing/channels/channelWorld.js';
import { inProcessLimits } from '../../testing/chatFixture.js';
import { sessionScopeFromLog } from '../chat/sessionScopeFromLog.js';

const CLIENT_SECRET = 'cc-secret-7f3a';
const INBOUND_TOKEN = 'ivr-token-9b1c';
const STREAM = 'acme-contact-centre';
const IVR = 'acme-ivr';
/** Short, so a `/delay` turn outlasts it; scripted turns take well under it. */
const TURN_TIMEOUT_MS = 3_000;

let world: ChannelWorld;
let ccConnectionId: string;
let vxmlConnectionId: string;
/** Turns started through the API's runtime (the chat runtime that buildApp hands the webhooks). */
let turns = 0;

beforeAll(async () => {
  world = await createChannelWorld({
    adapters: new Map(
      [createContactCenterAdapter(), createVxmlAdapter()].map((adapter) => [adapter.channelType, adapter]),
    ),
    syncTurnTimeoutMs: TURN_TIMEOUT_MS,
    // The webhooks get their runTurn from the chat runtime (app.ts), not from the pipeline.
    app: ({ auth, store, runtime }) => {
      const counting: Pick<Runtime, 'runTurn' | 'endSession'> = {
        runTurn: (req, options) => {
          turns += 1;
          // `no-abort`: a turn that does not stop when the request's timeout aborts it.
          return req.message.includes('no-abort') ? runtime.runTurn(req) : runtime.runTurn(req, options);
        },
        endSession: (...args) => runtime.endSession(...args),
      };
      return {
        chat: {
          verifyApiKey: (key) => auth.verifyApiKey(key),
          runtime: counting,
          sessionScope: sessionScopeFromLog(store),
          limits: inProcessLimits(),
        },
      };
    },
  });
  ccConnectionId = (
    await world.connect({
      channelType: 'contact_center',
      externalIdentifier: STREAM,
      credentials: { clientSecret: CLIENT_SECRET },
    })
  ).id;
  vxmlConnectionId = (
    await world.connect({
      channelType: 'vxml',
      externalIdentifier: IVR,
      credentials: { inboundToken: INBOUND_TOKEN },
      settings: { greeting: 'Welcome to Acme.' },
    })
  ).id;
}, 60_000);

afterAll(async () => {
  await world?.close();
});

beforeEach(() => {
  turns = 0;
});

let seq = 0;
const nextId = (prefix: string) => `${prefix}-${++seq}-${randomBytes(4).toString('hex')}`;

// A Genesys Cloud Digital Bot Connector turn request.
const utterance = (text: string, ids: { session: string; message?: string }) => ({
  botId: 'parley',
  botVersion: '1',
  botSessionId: ids.session,
  messageId: ids.message ?? nextId('msg'),
  inputMessage: { type: 'Text', text },
  languageCode: 'en-us',
  botSessionTimeout: 4320,
  genesysConversationId: `conv-${ids.session}`,
  parameters: {},
});

const postCc = (body: object, secret = CLIENT_SECRET) =>
  world.app.inject({
    method: 'POST',
    url: `/api/v1/channels/contact_center/hooks/${STREAM}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    payload: JSON.stringify(body),
  });

const postVxml = (fields: Record<string, string>, token = INBOUND_TOKEN) =>
  world.app.inject({
    method: 'POST',
    url: `/api/v1/channels/vxml/hooks/${IVR}?token=${encodeURIComponent(token)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });

async function row(connectionId: string, externalMessageId: string) {
  const { rows } = await world.db.pool.query<{ session_id: string | null; processed: boolean }>(
    `select session_id, processed_at is not null as processed from channel_inbound_messages
     where connection_id = $1 and external_message_id = $2`,
    [connectionId, externalMessageId],
  );
  return rows[0];
}

async function logSize(): Promise<number> {
  const { rows } = await world.db.pool.query<{ n: string }>('select count(*)::text as n from events');
  return Number(rows[0]?.n ?? 0);
}

const dataOf = (e: RecordedEvent | undefined) => e?.data as Record<string, unknown> | undefined;

describe('contact_center (synchronous)', () => {
  it('answers a verified request with the agent’s reply in the connector’s format, and records it', async () => {
    const body = utterance('Where is my order?', { session: nextId('bs') });
    const res = await postCc(body);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const answer = res.json() as { botState: string; replymessages: Array<{ type: string; text: string }> };
    expect(answer.botState).toBe('MoreData');
    expect(answer.replymessages).toHaveLength(1);
    expect(answer.replymessages[0]?.type).toBe('Text');
    expect(turns).toBe(1);

    const recorded = await row(ccConnectionId, body.messageId);
    expect(recorded?.processed).toBe(true);
    const log = await world.events(recorded?.session_id ?? '');
    const received = log.find((e) => e.type === 'MessageReceived');
    const replied = log.find((e) => e.type === 'AgentReplied');
    const sent = log.filter((e) => e.type === 'ChannelMessageSent');
    expect(dataOf(received)).toMatchObject({
      externalMessageId: body.messageId,
      channelMetadata: { botSessionId: body.botSessionId, genesysConversationId: body.genesysConversationId },
    });
    expect(answer.replymessages[0]?.text).toBe(dataOf(replied)?.text);
    expect(sent).toHaveLength(1);
    const replyId = dataOf(replied)?.messageId as string;
    expect(dataOf(sent[0])).toMatchObject({
      connectionId: ccConnectionId,
      channelType: 'contact_center',
      messageId: replyId,
      attempts: 1,
    });
    expect(sent[0]?.eventId).toBe(deliveryEventId(ccConnectionId, replyId));
    expect(log.findIndex((e) => e.type === 'ChannelMessageSent')).toBeGreaterThan(
      log.findIndex((e) => e.type === 'AgentReplied'),
    );
  });

  it('answers the same request again, sequentially and concurrently, with one turn and the same reply', async () => {
    const body = utterance('Repeat after me', { session: nextId('bs') });
    const [first, ...concurrent] = await Promise.all(Array.from({ length: 5 }, () => postCc(body)));
    const again = await postCc(body);
    expect(turns).toBe(1);
    for (const res of [...concurrent, again]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(first?.body);
    }
    const sessionId = (await row(ccConnectionId, body.messageId))?.session_id ?? '';
    const types = (await world.events(sessionId)).map((e) => e.type);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(1);
    expect(types.filter((t) => t === 'AgentReplied')).toHaveLength(1);
    expect(types.filter((t) => t === 'ChannelMessageSent')).toHaveLength(1);
  });

  it('refuses a wrong secret with 401 and records nothing', async () => {
    const before = await logSize();
    const body = utterance('forged', { session: nextId('bs') });
    const res = await postCc(body, 'not-the-secret');
    expect(res.statusCode).toBe(401);
    expect(await row(ccConnectionId, body.messageId)).toBeUndefined();
    expect(await logSize()).toBe(before);
    expect(turns).toBe(0);
  });

  it('renders buttons as quick replies, continues the session, and answers Complete when the agent ends it', async () => {
    const session = nextId('bs');
    const buttons = await postCc(utterance('Pick /buttons Track | Agent', { session }));
    const structured = (
      buttons.json() as { replymessages: Array<Record<string, unknown>> }
    ).replymessages.find((m) => m.type === 'Structured');
    expect(structured?.content).toEqual([
      {
        contentType: 'QuickReply',
        quickReply: { text: 'Track', payload: expect.any(String), action: 'Message' },
      },
      {
        contentType: 'QuickReply',
        quickReply: { text: 'Agent', payload: expect.any(String), action: 'Message' },
      },
    ]);
    const first = await world.sessionOf(ccConnectionId, session);
    const ended = await postCc(utterance('Thanks /end contained_resolved', { session }));
    expect((ended.json() as { botState: string }).botState).toBe('Complete');
    const types = (await world.events(first ?? '')).map((e) => e.type);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(2);
    expect(types).toContain('SessionEnded');
    // The conversation's session ended: its next message starts a new one.
    const after = await postCc(utterance('Hello again', { session }));
    expect((after.json() as { botState: string }).botState).toBe('MoreData');
    expect(await world.sessionOf(ccConnectionId, session)).not.toBe(first);
  });

  it('answers a failed turn as Failed, stored: a retry gets the same answer without a second turn', async () => {
    const body = utterance('Break /error 500', { session: nextId('bs') });
    const res = await postCc(body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ botState: 'Failed', errorInfo: { errorCode: 'TurnFailed' } });
    const retry = await postCc(body);
    expect(retry.body).toBe(res.body);
    expect(turns).toBe(1);
  });

  it('answers a turn past the timeout as Failed (TurnTimeout), aborts it, and a retry gets the same answer', async () => {
    const session = nextId('bs');
    const body = utterance('Slow /delay 6000', { session });
    const started = Date.now();
    const res = await postCc(body);
    expect(Date.now() - started).toBeLessThan(TURN_TIMEOUT_MS + 1_500);
    expect(res.json()).toMatchObject({ botState: 'Failed', errorInfo: { errorCode: 'TurnTimeout' } });
    const retry = await postCc(body);
    expect(retry.body).toBe(res.body);
    expect(turns).toBe(1);
    // The aborted turn let go of the conversation: its next message is answered.
    const next = await postCc(utterance('Still there?', { session }));
    expect((next.json() as { botState: string }).botState).toBe('MoreData');
  }, 20_000);

  it('records a reply that came after the timeout as not delivered (ChannelSendFailed), mapped to its session', async () => {
    const session = nextId('bs');
    const body = utterance('Slow /delay 4500 no-abort', { session });
    const res = await postCc(body);
    expect(res.json()).toMatchObject({ botState: 'Failed', errorInfo: { errorCode: 'TurnTimeout' } });
    // A concurrent retry while the late turn holds the lock: answered from the stored outcome at once.
    const retryStarted = Date.now();
    const retry = await postCc(body);
    expect(Date.now() - retryStarted).toBeLessThan(2_000);
    expect(retry.body).toBe(res.body);
    // The late turn finishes after the answer: wait for its delivery outcome to be recorded.
    let sessionId: string | null | undefined;
    let log: RecordedEvent[] = [];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      sessionId = (await row(ccConnectionId, body.messageId))?.session_id;
      log = sessionId ? await world.events(sessionId) : [];
      if (log.some((e) => e.type === 'ChannelSendFailed')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(sessionId).toBeTruthy();
    const replyId = dataOf(log.find((e) => e.type === 'AgentReplied'))?.messageId as string;
    const failed = log.filter((e) => e.type === 'ChannelSendFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.eventId).toBe(deliveryEventId(ccConnectionId, replyId));
    expect(dataOf(failed[0])).toMatchObject({
      connectionId: ccConnectionId,
      messageId: replyId,
      retryable: false,
    });
    expect(log.filter((e) => e.type === 'ChannelMessageSent')).toHaveLength(0);
    expect(await world.sessionOf(ccConnectionId, session)).toBe(sessionId);
    expect(turns).toBe(1);
  }, 20_000);

  it('answers 400 in the connector’s format for an unreadable request, recording nothing', async () => {
    const res = await postCc({ botSessionId: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ botState: 'Failed', errorInfo: { errorCode: 'InvalidRequest' } });
    expect(turns).toBe(0);
  });
});

describe('vxml (synchronous)', () => {
  const prompts = (xml: string) => [...xml.matchAll(/<prompt>([\s\S]*?)<\/prompt>/g)].map((m) => m[1]);

  it('greets at call start without a turn, then answers each utterance with a VoiceXML document', async () => {
    const call = nextId('call');
    const before = await logSize();
    const start = await postVxml({ session_id: call, caller: '+15550100' });
    expect(start.statusCode).toBe(200);
    expect(start.headers['content-type']).toBe('application/voicexml+xml; charset=utf-8');
    expect(xmlWellFormedError(start.body)).toBeNull();
    expect(prompts(start.body)).toEqual(['Welcome to Acme.']);
    expect(start.body).toContain(
      `<submit next="/api/v1/channels/vxml/hooks/${IVR}?token=${INBOUND_TOKEN}" method="post" namelist="session_id turn utterance caller"/>`,
    );
    expect(turns).toBe(0);
    expect(await logSize()).toBe(before);

    const res = await postVxml({
      session_id: call,
      turn: '1',
      utterance: 'what are your opening hours',
      caller: '+15550100',
    });
    expect(res.statusCode).toBe(200);
    expect(xmlWellFormedError(res.body)).toBeNull();
    expect(turns).toBe(1);
    const recorded = await row(vxmlConnectionId, `${call}:1`);
    const log = await world.events(recorded?.session_id ?? '');
    const replied = dataOf(log.find((e) => e.type === 'AgentReplied'));
    expect(prompts(res.body)[0]).toBe(
      String(replied?.text).replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&apos;'),
    );
    expect(res.body).toContain('<var name="turn" expr="&quot;2&quot;"/>');
    expect(dataOf(log.find((e) => e.type === 'MessageReceived'))).toMatchObject({
      externalMessageId: `${call}:1`,
    });
    expect(dataOf(log.find((e) => e.type === 'SessionStarted'))).toMatchObject({
      // spec 000 §4.2's value, so the ledger's exact channel filter finds the calls.
      channel: 'voice_vxml',
      channelType: 'vxml',
      channelUserId: '+15550100',
    });
    expect(log.filter((e) => e.type === 'ChannelMessageSent')).toHaveLength(1);
  });

  it('answers a resubmitted utterance (sequential and concurrent) with the same document and one turn', async () => {
    const fields = { session_id: nextId('call'), turn: '1', utterance: 'repeat' };
    const all = await Promise.all([postVxml(fields), postVxml(fields), postVxml(fields)]);
    const again = await postVxml(fields);
    expect(turns).toBe(1);
    for (const res of [...all, again]) expect(res.body).toBe(all[0]?.body);
  });

  it('hangs up when the agent ends the session', async () => {
    const res = await postVxml({
      session_id: nextId('call'),
      turn: '1',
      utterance: 'bye /end contained_resolved',
    });
    expect(xmlWellFormedError(res.body)).toBeNull();
    expect(res.body).toContain('<disconnect/>');
    expect(res.body).not.toContain('<field');
  });

  it('refuses a wrong or missing token with 401 and records nothing', async () => {
    const fields = { session_id: nextId('call'), turn: '1', utterance: 'forged' };
    const before = await logSize();
    expect((await postVxml(fields, 'wrong')).statusCode).toBe(401);
    const unsigned = await world.app.inject({
      method: 'POST',
      url: `/api/v1/channels/vxml/hooks/${IVR}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
    expect(unsigned.statusCode).toBe(401);
    expect(await row(vxmlConnectionId, `${fields.session_id}:1`)).toBeUndefined();
    expect(await logSize()).toBe(before);
    expect(turns).toBe(0);
  });
});
