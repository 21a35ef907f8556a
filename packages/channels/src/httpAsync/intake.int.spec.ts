import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { httpAsyncStream, upcast } from '@parley/events';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
  type RecordedEvent,
} from '@parley/eventstore';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.js';
import { createChannelJobQueue } from '../inbound/jobs.js';
import { channelInboundMigrations } from '../inbound/migrations.js';
import { createHttpAsyncIntake, type HttpAsyncIntake, type HttpAsyncSubmitInput } from './intake.js';
import {
  SessionIdUnknownError,
  SessionKeyInUseError,
  SessionKeyInvalidError,
  SessionKeyUnknownError,
  SubscriptionPausedError,
} from './intakeErrors.js';
import { HTTP_ASYNC_TURN_QUEUE, httpAsyncEventId, httpAsyncTurnJobId } from './jobs.js';
import { httpAsyncMigrations } from './migrations.js';
import { QueueMissingError } from './queueCallback.js';
import { SubscriptionNotFoundError } from './subscriptionSchema.js';
import { createSubscriptionStore, type SubscriptionStore } from './subscriptionStore.js';
import { ensureHttpAsyncQueues } from './work.js';

let db: TestDatabase;
let auth: AuthStore;
let store: PostgresEventStore;
let subscriptions: SubscriptionStore;
let boss: PgBoss;
let intake: HttpAsyncIntake;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
const clock = new Date('2026-11-21T10:00:00.000Z');

const create = async (project: string, status: 'active' | 'paused' = 'active') =>
  (
    await subscriptions.create(project, {
      displayName: 'Receiver',
      callbackUrl: 'https://receiver.example/hook',
      events: ['agent.response'],
      status,
    })
  ).subscription.id;

const input = (subscriptionId: string, extra: Partial<HttpAsyncSubmitInput> = {}): HttpAsyncSubmitInput => ({
  tenantId,
  projectId,
  subscriptionId,
  text: 'Where is my order?',
  route: 'message',
  ...extra,
});

const eventsOf = async (messageId: string): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for await (const e of store.readStream(httpAsyncStream(messageId))) events.push(e);
  return events;
};

const count = async (sql: string, values: unknown[]): Promise<number> =>
  Number((await db.pool.query<{ n: string }>(`select count(*) as n from ${sql}`, values)).rows[0]?.n);

beforeAll(async () => {
  db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    channelInboundMigrations,
    httpAsyncMigrations,
  ]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  subscriptions = createSubscriptionStore(db.pool, createKeyring(randomBytes(32)), {
    checkUrl: async (url) => ({ ok: true, url: new URL(url), addresses: ['93.184.215.14'] }),
  });
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureHttpAsyncQueues(boss);
  intake = createHttpAsyncIntake({ pool: db.pool, store, subscriptions, boss, now: () => clock });
});
afterAll(async () => {
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await store?.close();
  await db?.close();
});

describe('a first message (the caller’s own key)', () => {
  it('starts a conversation and writes its row, the inbound row, the turn job and the Accepted event', async () => {
    const subscriptionId = await create(projectId);
    const accepted = await intake.submit(
      input(subscriptionId, { sessionKey: 'order-4711', metadata: { orderId: 4711, tags: ['vip'] } }),
    );
    expect(accepted).toEqual({
      messageId: expect.stringMatching(/^ham_[0-9A-Za-z]{20}$/),
      sessionKey: expect.stringMatching(new RegExp(`^ha:${subscriptionId}:[0-9A-Za-z]{22}$`)),
      newConversation: true,
      sessionId: null,
      acceptedAt: clock,
    });
    const { messageId, sessionKey } = accepted;

    const conversation = await db.pool.query(
      'select canonical_key, subscription_id, project_id, caller_key from http_async_conversations where canonical_key = $1',
      [sessionKey],
    );
    expect(conversation.rows).toEqual([
      {
        canonical_key: sessionKey,
        subscription_id: subscriptionId,
        project_id: projectId,
        caller_key: 'order-4711',
      },
    ]);

    const jobId = httpAsyncTurnJobId(subscriptionId, messageId);
    const inbound = await db.pool.query(
      'select * from channel_inbound_messages where connection_id = $1 and external_message_id = $2',
      [subscriptionId, messageId],
    );
    expect(inbound.rows).toEqual([
      {
        connection_id: subscriptionId,
        external_message_id: messageId,
        external_session_key: sessionKey,
        job_id: jobId,
        received_at: clock,
        session_id: null,
        reply_message_id: null,
        processed_at: null,
        sync_outcome: null,
      },
    ]);

    const job = await boss.getJobById(HTTP_ASYNC_TURN_QUEUE, jobId);
    expect(job?.state).toBe('created');
    expect(job?.data).toEqual({
      messageId,
      subscriptionId,
      projectId,
      tenantId,
      route: 'message',
      sessionKey,
      newConversation: true,
      text: 'Where is my order?',
      metadata: { orderId: 4711, tags: ['vip'] },
      acceptedAt: clock.toISOString(),
    });

    const events = await eventsOf(messageId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventId: httpAsyncEventId('accepted', messageId, 0),
      type: 'HttpAsyncMessageAccepted',
      schemaVersion: 1,
      data: {
        messageId,
        projectId,
        subscriptionId,
        route: 'message',
        sessionKey,
        newConversation: true,
        text: 'Where is my order?',
        metadata: { orderId: 4711, tags: ['vip'] },
        acceptedAt: clock.toISOString(),
      },
      metadata: { tenantId, projectId, correlationId: messageId },
    });
  });

  it('continues with the canonical key, and names the runtime session once the conversation has one', async () => {
    const subscriptionId = await create(projectId);
    const first = await intake.submit(input(subscriptionId, { sessionKey: 'c-1' }));
    const second = await intake.submit(input(subscriptionId, { sessionKey: first.sessionKey }));
    expect(second).toMatchObject({ sessionKey: first.sessionKey, newConversation: false, sessionId: null });
    expect(second.messageId).not.toBe(first.messageId);
    await db.pool.query(
      'insert into channel_sessions (connection_id, external_session_key, session_id) values ($1, $2, $3)',
      [subscriptionId, first.sessionKey, 'ses_runtime_1'],
    );
    const third = await intake.submit(input(subscriptionId, { sessionKey: first.sessionKey }));
    expect(third).toMatchObject({
      sessionKey: first.sessionKey,
      newConversation: false,
      sessionId: 'ses_runtime_1',
    });
    const job = await boss.getJobById(
      HTTP_ASYNC_TURN_QUEUE,
      httpAsyncTurnJobId(subscriptionId, third.messageId),
    );
    expect(job?.data).toMatchObject({ newConversation: false, sessionKey: first.sessionKey, metadata: {} });
  });

  it('refuses a caller key used before with 409, naming the canonical key, and writes nothing', async () => {
    const subscriptionId = await create(projectId);
    const first = await intake.submit(input(subscriptionId, { sessionKey: 'again' }));
    const refused = await intake
      .submit(input(subscriptionId, { sessionKey: 'again' }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SessionKeyInUseError);
    expect(refused).toMatchObject({
      code: 'SESSION_KEY_IN_USE',
      status: 409,
      sessionKey: first.sessionKey,
      details: { session_key: first.sessionKey },
    });
    expect(await count('channel_inbound_messages where connection_id = $1', [subscriptionId])).toBe(1);
    // The same caller key on another subscription is another conversation.
    const other = await create(projectId);
    expect((await intake.submit(input(other, { sessionKey: 'again' }))).newConversation).toBe(true);
  });

  it('lets exactly one of several simultaneous first messages with the same key start the conversation', async () => {
    const subscriptionId = await create(projectId);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => intake.submit(input(subscriptionId, { sessionKey: 'race' }))),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(5);
    const key = won[0]?.status === 'fulfilled' ? won[0].value.sessionKey : '';
    for (const r of lost) {
      expect(r.reason).toBeInstanceOf(SessionKeyInUseError);
      expect((r.reason as SessionKeyInUseError).sessionKey).toBe(key);
    }
    expect(await count('http_async_conversations where subscription_id = $1', [subscriptionId])).toBe(1);
    expect(await count('channel_inbound_messages where connection_id = $1', [subscriptionId])).toBe(1);
    // The refused ones wrote no event and no job either.
    expect(
      await count(`events where type = 'HttpAsyncMessageAccepted' and data->>'subscriptionId' = $1`, [
        subscriptionId,
      ]),
    ).toBe(1);
    expect(
      await count(`pgboss.job where name = $1 and data->>'subscriptionId' = $2`, [
        HTTP_ASYNC_TURN_QUEUE,
        subscriptionId,
      ]),
    ).toBe(1);
  });

  it('wakes the turn workers after the commit (job and event visible then), and not for a refused key', async () => {
    const subscriptionId = await create(projectId);
    // What another connection sees at each wake-up: the commit must come first.
    const seen: Array<Promise<{ queue: string; jobs: number; events: number }>> = [];
    const woken = createHttpAsyncIntake({
      pool: db.pool,
      store,
      subscriptions,
      boss,
      wakeups: {
        notify: (queue) => {
          seen.push(
            Promise.all([
              count(`pgboss.job where name = $1 and data->>'subscriptionId' = $2`, [
                HTTP_ASYNC_TURN_QUEUE,
                subscriptionId,
              ]),
              count(`events where type = 'HttpAsyncMessageAccepted' and data->>'subscriptionId' = $1`, [
                subscriptionId,
              ]),
            ]).then(([jobs, events]) => ({ queue, jobs, events })),
          );
        },
      },
    });
    await woken.submit(input(subscriptionId, { sessionKey: 'wake-me' }));
    await expect(woken.submit(input(subscriptionId, { sessionKey: 'wake-me' }))).rejects.toBeInstanceOf(
      SessionKeyInUseError,
    );
    expect(await Promise.all(seen)).toEqual([{ queue: HTTP_ASYNC_TURN_QUEUE, jobs: 1, events: 1 }]);
  });

  it('refuses a caller key that cannot be stored as sent', async () => {
    const subscriptionId = await create(projectId);
    for (const sessionKey of ['', 'k'.repeat(257), 'line\nbreak', 'nul\u0000']) {
      await expect(intake.submit(input(subscriptionId, { sessionKey }))).rejects.toBeInstanceOf(
        SessionKeyInvalidError,
      );
    }
  });
});

describe('a canonical key', () => {
  it('must be one issued for this subscription', async () => {
    const subscriptionId = await create(projectId);
    const other = await create(projectId);
    const issued = await intake.submit(input(other, { sessionKey: 'mine' }));
    for (const sessionKey of [
      issued.sessionKey,
      `ha:${subscriptionId}:AAAAAAAAAAAAAAAAAAAAAA`,
      'ha:built-by-hand',
    ]) {
      const refused = await intake.submit(input(subscriptionId, { sessionKey })).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SessionKeyUnknownError);
      expect(refused).toMatchObject({
        code: 'SESSION_KEY_UNKNOWN',
        status: 400,
        message: expect.stringContaining('exactly as returned in the acknowledgement; do not build it'),
      });
    }
    expect(await count('channel_inbound_messages where connection_id = $1', [subscriptionId])).toBe(0);
  });
});

describe('the subscription', () => {
  it('must exist, be the project’s and not be deleted (all the same 404); paused is 409', async () => {
    const mine = await create(projectId);
    const theirs = await create(otherProjectId);
    const deleted = await create(projectId);
    await subscriptions.delete(projectId, deleted);
    const paused = await create(projectId, 'paused');
    for (const id of [theirs, deleted, 'sub_0000000000000000']) {
      const refused = await intake.submit(input(id, { sessionKey: 'k' })).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SubscriptionNotFoundError);
      expect(refused).toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND', status: 404 });
    }
    await expect(intake.submit(input(paused, { sessionKey: 'k' }))).rejects.toMatchObject({
      code: 'SUBSCRIPTION_PAUSED',
      status: 409,
    });
    await expect(intake.submit(input(paused, { sessionKey: 'k' }))).rejects.toBeInstanceOf(
      SubscriptionPausedError,
    );
    expect((await intake.submit(input(mine, { sessionKey: 'k' }))).newConversation).toBe(true);
  });
});

describe('the earlier route (http_async/send)', () => {
  it('starts a conversation per message without a sessionId, keyed by the message id', async () => {
    const subscriptionId = await create(projectId);
    const a = await intake.submit(input(subscriptionId, { route: 'send' }));
    const b = await intake.submit(input(subscriptionId, { route: 'send' }));
    expect(a).toMatchObject({ newConversation: true, sessionId: null });
    expect(b.sessionKey).not.toBe(a.sessionKey);
    const rows = await db.pool.query(
      'select caller_key from http_async_conversations where canonical_key = $1',
      [a.sessionKey],
    );
    expect(rows.rows).toEqual([{ caller_key: a.messageId }]);
    const job = await boss.getJobById(HTTP_ASYNC_TURN_QUEUE, httpAsyncTurnJobId(subscriptionId, a.messageId));
    expect(job?.data).toMatchObject({ route: 'send', newConversation: true });
    expect((await eventsOf(a.messageId))[0]?.data).toMatchObject({ route: 'send' });
  });

  it('continues the conversation of a runtime session of this subscription, else 400', async () => {
    const subscriptionId = await create(projectId);
    const other = await create(projectId);
    const first = await intake.submit(input(subscriptionId, { route: 'send' }));
    await db.pool.query(
      'insert into channel_sessions (connection_id, external_session_key, session_id) values ($1, $2, $3)',
      [subscriptionId, first.sessionKey, 'ses_legacy_1'],
    );
    const next = await intake.submit(input(subscriptionId, { route: 'send', sessionId: 'ses_legacy_1' }));
    expect(next).toMatchObject({
      sessionKey: first.sessionKey,
      newConversation: false,
      sessionId: 'ses_legacy_1',
    });
    for (const [id, sessionId] of [
      [subscriptionId, 'ses_nope'],
      [other, 'ses_legacy_1'],
    ] as const) {
      await expect(intake.submit(input(id, { route: 'send', sessionId }))).rejects.toBeInstanceOf(
        SessionIdUnknownError,
      );
    }
  });
});

describe('without the turn queue', () => {
  it('accepts nothing (QueueMissingError) and leaves no trace', async () => {
    const subscriptionId = await create(projectId);
    // The earlier tests' jobs (none fetched) must go before their queue can.
    await boss.deleteQueuedJobs(HTTP_ASYNC_TURN_QUEUE);
    await boss.deleteQueue(HTTP_ASYNC_TURN_QUEUE);
    try {
      await expect(intake.submit(input(subscriptionId, { sessionKey: 'lost' }))).rejects.toBeInstanceOf(
        QueueMissingError,
      );
    } finally {
      await ensureHttpAsyncQueues(boss);
    }
    expect(await count('http_async_conversations where subscription_id = $1', [subscriptionId])).toBe(0);
    expect(await count('channel_inbound_messages where connection_id = $1', [subscriptionId])).toBe(0);
    expect(
      await count(`events where type = 'HttpAsyncMessageAccepted' and data->>'subscriptionId' = $1`, [
        subscriptionId,
      ]),
    ).toBe(0);
    // The same key works once the queue is back: nothing of the failed attempt was kept.
    expect((await intake.submit(input(subscriptionId, { sessionKey: 'lost' }))).newConversation).toBe(true);
  });

  it('nor before pg-boss was ever started on the database (no pgboss schema)', async () => {
    const bare = await createTestDatabase([
      eventStoreMigrations,
      authMigrations,
      channelInboundMigrations,
      httpAsyncMigrations,
    ]);
    const bareStore = createPostgresEventStore({ pool: bare.pool, connectionString: bare.url, upcast });
    try {
      const bareAuth = createAuthStore(bare.pool);
      const tenant = (await bareAuth.createTenant({ name: 'Bare' })).id;
      const project = (await bareAuth.createProject({ tenantId: tenant, slug: 'bare' })).id;
      const bareSubscriptions = createSubscriptionStore(bare.pool, createKeyring(randomBytes(32)), {
        checkUrl: async (url) => ({ ok: true, url: new URL(url), addresses: ['93.184.215.14'] }),
      });
      const { subscription } = await bareSubscriptions.create(project, {
        displayName: 'Receiver',
        callbackUrl: 'https://receiver.example/hook',
        events: ['agent.response'],
      });
      const bareIntake = createHttpAsyncIntake({
        pool: bare.pool,
        store: bareStore,
        subscriptions: bareSubscriptions,
        boss: createChannelJobQueue(bare.pool),
      });
      await expect(
        bareIntake.submit({
          tenantId: tenant,
          projectId: project,
          subscriptionId: subscription.id,
          text: 'hi',
          sessionKey: 'k',
          route: 'message',
        }),
      ).rejects.toBeInstanceOf(QueueMissingError);
      expect(
        Number((await bare.pool.query('select count(*) as n from http_async_conversations')).rows[0].n),
      ).toBe(0);
    } finally {
      await bareStore.close();
      await bare.close();
    }
  });
});
