import { createHmac } from 'node:crypto';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_SEND_QUEUE,
  createChannelAdapters,
  type InboundJobData,
  type InboundWorkerDeps,
  processInboundJob,
  processSendJob,
  RetryableSendError,
  type SendJobData,
} from '@parley/channels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChannelWorld, createChannelWorld } from '../../testing/channels/channelWorld.js';
import {
  FAKE_CHANNEL,
  fakeAdapter,
  type PlatformStandIn,
  startPlatformStandIn,
} from '../../testing/channels/fakeChannel.js';

/**
 * The worker's jobs driven one at a time (boss.fetch, then the job function), so each test sees
 * exactly the jobs it caused: the inbound job's idempotency, conversation-to-session mapping,
 * permanent send failures, and the real Telegram adapter end to end.
 */

let world: ChannelWorld;
let platform: PlatformStandIn;
/** The worker with the fake in place of the real `whatsapp` adapter (the job tests). */
let deps: InboundWorkerDeps;
/** The worker with the real adapters only (the route tests, like the API's webhooks). */
let realDeps: InboundWorkerDeps;
let projectId: string;
let fakeId: string;
let telegramId: string;
let whatsappId: string;
const BOT_ID = '7000001';
const PHONE_NUMBER_ID = '106540352242922';
const APP_SECRET = 'meta-app-secret';

beforeAll(async () => {
  world = await createChannelWorld();
  realDeps = world.deps;
  deps = { ...world.deps, adapters: new Map([...createChannelAdapters(), [FAKE_CHANNEL, fakeAdapter]]) };
  platform = await startPlatformStandIn();
  const { auth, connections } = world;
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'jobs' })).id;
  fakeId = (
    await connections.create(projectId, {
      channelType: FAKE_CHANNEL,
      externalIdentifier: 'fake-1',
      credentials: { accessToken: 't', appSecret: 's', verifyToken: 'v' },
      settings: { apiBaseUrl: platform.url },
    })
  ).id;
  telegramId = (
    await connections.create(projectId, {
      channelType: 'telegram',
      externalIdentifier: BOT_ID,
      credentials: { botToken: `${BOT_ID}:AAE-secret-token`, webhookSecret: 'tg-secret-1' },
      settings: { apiBaseUrl: platform.url },
    })
  ).id;
  whatsappId = (
    await connections.create(projectId, {
      channelType: 'whatsapp',
      externalIdentifier: PHONE_NUMBER_ID,
      credentials: { accessToken: 'EAAG-token', appSecret: APP_SECRET, verifyToken: 'wa-verify' },
      settings: { apiBaseUrl: platform.url },
    })
  ).id;
}, 60_000);

afterAll(async () => {
  await world?.close();
  await platform?.close();
});

let seq = 0;
const inbound = (chat: string, text = 'hello', connectionId = fakeId): InboundJobData => {
  seq += 1;
  return {
    connectionId,
    channelType: FAKE_CHANNEL,
    message: {
      externalMessageId: `job-msg-${seq}`,
      externalSessionKey: chat,
      text,
      metadata: { chatId: chat },
      timestamp: '2026-11-21T10:00:00.000Z',
    },
    receivedAt: '2026-11-21T10:00:00.100Z',
  };
};

/** Inserts the dedupe row the webhook would have inserted. */
async function received(data: InboundJobData): Promise<void> {
  await world.db.pool.query(
    `insert into channel_inbound_messages (connection_id, external_message_id, external_session_key, job_id)
     values ($1, $2, $3, gen_random_uuid())`,
    [data.connectionId, data.message.externalMessageId, data.message.externalSessionKey],
  );
}

async function sendJobsOf(sessionId: string): Promise<SendJobData[]> {
  const { rows } = await world.db.pool.query<{ data: SendJobData }>(
    `select data from pgboss.job where name = $1 and data->>'sessionId' = $2`,
    [CHANNEL_SEND_QUEUE, sessionId],
  );
  return rows.map((r) => r.data);
}

async function streamTypes(sessionId: string): Promise<string[]> {
  return (await world.events(sessionId)).map((e) => e.type);
}

describe('the inbound job', () => {
  it('runs the turn once however often the job runs, and enqueues one send', async () => {
    const data = inbound('chat-once');
    await received(data);
    const before = world.turns;
    await processInboundJob(deps, world.boss, data);
    await processInboundJob(deps, world.boss, data);
    await Promise.all([processInboundJob(deps, world.boss, data), processInboundJob(deps, world.boss, data)]);
    expect(world.turns - before).toBe(1);
    const sessionId = (await world.sessionOf(fakeId, 'chat-once')) ?? '';
    expect((await streamTypes(sessionId)).filter((t) => t === 'AgentReplied')).toHaveLength(1);
    expect(await sendJobsOf(sessionId)).toHaveLength(1);
  });

  it('records the platform’s message id, metadata and time on MessageReceived', async () => {
    const data = inbound('chat-fields');
    data.message.messageMetadata = { tier: 'gold' };
    await received(data);
    await processInboundJob(deps, world.boss, data);
    const sessionId = (await world.sessionOf(fakeId, 'chat-fields')) ?? '';
    const events = await world.events(sessionId);
    const message = events.find((e) => e.type === 'MessageReceived');
    expect(message?.data).toMatchObject({
      externalMessageId: data.message.externalMessageId,
      channelMetadata: { chatId: 'chat-fields' },
      sentAt: '2026-11-21T10:00:00.000Z',
      messageMetadata: { tier: 'gold' },
      text: 'hello',
    });
  });

  it('maps a new conversation to one session even when its first messages are processed at once', async () => {
    const jobs = [inbound('chat-burst', 'one'), inbound('chat-burst', 'two'), inbound('chat-burst', 'three')];
    for (const job of jobs) await received(job);
    await Promise.all(jobs.map((job) => processInboundJob(deps, world.boss, job)));
    const sessionId = (await world.sessionOf(fakeId, 'chat-burst')) ?? '';
    const types = await streamTypes(sessionId);
    expect(types.filter((t) => t === 'SessionStarted')).toHaveLength(1);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(3);
    expect(await sendJobsOf(sessionId)).toHaveLength(3);
  });

  it('starts a new session when the conversation’s session has ended', async () => {
    const first = inbound('chat-ended');
    await received(first);
    await processInboundJob(deps, world.boss, first);
    const ended = (await world.sessionOf(fakeId, 'chat-ended')) ?? '';
    await world.runtime.endSession(projectId, ended);
    const next = inbound('chat-ended', 'back again');
    await received(next);
    await processInboundJob(deps, world.boss, next);
    const fresh = await world.sessionOf(fakeId, 'chat-ended');
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(ended);
    expect((await streamTypes(fresh ?? '')).slice(0, 2)).toEqual(['SessionStarted', 'MessageReceived']);
  });

  it('marks a message whose turn cannot succeed answered, without a reply or a retry', async () => {
    const unbound = (
      await world.connections.create(projectId, {
        channelType: FAKE_CHANNEL,
        externalIdentifier: 'fake-unbound',
        agentName: 'no-such-agent',
        credentials: { accessToken: 't', appSecret: 's', verifyToken: 'v2' },
      })
    ).id;
    const data = inbound('chat-noagent', 'hello', unbound);
    await received(data);
    const before = world.turns;
    await processInboundJob(deps, world.boss, data);
    await processInboundJob(deps, world.boss, data);
    expect(world.turns - before).toBe(1);
    expect(await world.sessionOf(unbound, 'chat-noagent')).toBeUndefined();
    const { rows } = await world.db.pool.query(
      'select processed_at is not null as done, reply_message_id from channel_inbound_messages where connection_id = $1',
      [unbound],
    );
    expect(rows).toEqual([{ done: true, reply_message_id: null }]);
  });

  it('drops the message of a deleted connection without a turn', async () => {
    const data = { ...inbound('chat-gone'), connectionId: 'chc_doesnotexist00' };
    const before = world.turns;
    await processInboundJob(deps, world.boss, data);
    expect(world.turns).toBe(before);
  });
});

describe('the send job', () => {
  it('records a permanent refusal at once, without retrying', async () => {
    platform.failChats.set('chat-403', 403);
    const data = inbound('chat-403');
    await received(data);
    await processInboundJob(deps, world.boss, data);
    const sessionId = (await world.sessionOf(fakeId, 'chat-403')) ?? '';
    const [job] = await sendJobsOf(sessionId);
    if (job === undefined) throw new Error('no send job');
    expect(await processSendJob(deps, job, { retryCount: 0, retryLimit: 5 })).toBe('failed');
    const events = await world.events(sessionId);
    expect(events.find((e) => e.type === 'ChannelSendFailed')?.data).toMatchObject({
      attempts: 1,
      retryable: false,
      status: 403,
      error: 'HTTP 403',
    });
    // A re-run of the same job appends no second outcome.
    expect(await processSendJob(deps, job, { retryCount: 0, retryLimit: 5 })).toBe('failed');
    expect((await streamTypes(sessionId)).filter((t) => t === 'ChannelSendFailed')).toHaveLength(1);
  });

  it('throws RetryableSendError while retryable attempts are left', async () => {
    platform.failChats.set('chat-503', 503);
    const data = inbound('chat-503');
    await received(data);
    await processInboundJob(deps, world.boss, data);
    const sessionId = (await world.sessionOf(fakeId, 'chat-503')) ?? '';
    const [job] = await sendJobsOf(sessionId);
    if (job === undefined) throw new Error('no send job');
    await expect(processSendJob(deps, job, { retryCount: 0, retryLimit: 1 })).rejects.toBeInstanceOf(
      RetryableSendError,
    );
    expect(await streamTypes(sessionId)).not.toContain('ChannelSendFailed');
    expect(await processSendJob(deps, job, { retryCount: 1, retryLimit: 1 })).toBe('failed');
  });
});

describe('the Telegram adapter through the pipeline', () => {
  it('verifies the secret token, answers the update in the chat and refuses a wrong token', async () => {
    const update = {
      update_id: 900001,
      message: {
        message_id: 42,
        date: 1_790_000_000,
        chat: { id: 555001, type: 'private' },
        from: { id: 555001, is_bot: false, first_name: 'Ada' },
        text: 'Hi from Telegram',
      },
    };
    const url = `/api/v1/channels/telegram/webhook/${BOT_ID}`;
    const wrong = await world.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'nope' },
      payload: update,
    });
    expect(wrong.statusCode).toBe(401);
    const ok = await world.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'tg-secret-1' },
      payload: update,
    });
    expect(ok.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });

    const [inboundJob] = await world.boss.fetch<InboundJobData>(CHANNEL_INBOUND_QUEUE);
    if (inboundJob === undefined) throw new Error('no inbound job');
    expect(inboundJob.data.connectionId).toBe(telegramId);
    await processInboundJob(realDeps, world.boss, inboundJob.data);
    await world.boss.complete(CHANNEL_INBOUND_QUEUE, inboundJob.id);
    const sessionId = (await world.sessionOf(telegramId, inboundJob.data.message.externalSessionKey)) ?? '';
    const [sendJob] = await sendJobsOf(sessionId);
    if (sendJob === undefined) throw new Error('no send job');
    expect(await processSendJob(realDeps, sendJob, { retryCount: 0, retryLimit: 3 })).toBe('sent');

    const calls = platform.requests.filter((r) => r.path.startsWith(`/bot${BOT_ID}:AAE-secret-token/`));
    expect(calls.map((r) => r.path.split('/').at(-1))).toEqual(['sendChatAction', 'sendMessage']);
    expect(calls[1]?.body).toMatchObject({ chat_id: 555001, text: expect.any(String) });
    expect(await streamTypes(sessionId)).toContain('ChannelMessageSent');
  });
});

describe('the WhatsApp adapter through the generic route', () => {
  it('finds the connection from the body, verifies X-Hub-Signature-256 and answers on the Graph API', async () => {
    // Shape of the WhatsApp Cloud API messages webhook.
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
                contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
                messages: [
                  {
                    from: '16505551234',
                    id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                    timestamp: '1749416383',
                    type: 'text',
                    text: { body: 'Does it come in another color?' },
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
    const post = (sig: string) =>
      world.app.inject({
        method: 'POST',
        url: '/api/v1/channels/whatsapp/webhook',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': sig },
        payload: raw,
      });
    expect((await post('sha256=00')).statusCode).toBe(401);
    expect((await post(signature)).json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
    expect((await post(signature)).json()).toEqual({ success: true, data: { accepted: 0, duplicates: 1 } });

    const [inboundJob] = await world.boss.fetch<InboundJobData>(CHANNEL_INBOUND_QUEUE);
    if (inboundJob === undefined) throw new Error('no inbound job');
    expect(inboundJob.data.connectionId).toBe(whatsappId);
    await processInboundJob(realDeps, world.boss, inboundJob.data);
    await world.boss.complete(CHANNEL_INBOUND_QUEUE, inboundJob.id);
    const sessionId = (await world.sessionOf(whatsappId, inboundJob.data.message.externalSessionKey)) ?? '';
    const [sendJob] = await sendJobsOf(sessionId);
    if (sendJob === undefined) throw new Error('no send job');
    expect(await processSendJob(realDeps, sendJob, { retryCount: 0, retryLimit: 3 })).toBe('sent');
    const sends = platform.requests.filter((r) => r.path === `/${PHONE_NUMBER_ID}/messages`);
    expect(sends.at(-1)?.body).toMatchObject({ messaging_product: 'whatsapp', to: '16505551234' });
  });
});
