import { randomBytes } from 'node:crypto';
import { authMigrations, createAuthStore } from '@parley/auth';
import { sessionStream, upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createPriceCards, createProviderRegistry, createRuntime, runtimeMigrations } from '@parley/runtime';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { PgBoss } from 'pg-boss';
import getTLSOptions from 'smtp-server/lib/tls-options.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailAdapter } from '../adapters/email/emailAdapter.js';
import { channelEmailMigrations } from '../adapters/email/emailMigrations.js';
import { createEmailThreadStore } from '../adapters/email/emailThreads.js';
import { type ConnectionStore, createConnectionStore } from '../connections/store.js';
import { createKeyring } from '../crypto/index.js';
import { inboundJobId, sendJobId } from '../inbound/ids.js';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_SEND_QUEUE,
  createChannelJobQueue,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  type InboundJobData,
  type SendJobData,
} from '../inbound/jobs.js';
import { channelInboundMigrations } from '../inbound/migrations.js';
import { createInboundPipeline } from '../inbound/pipeline.js';
import { type InboundWorkerDeps, processInboundJob, processSendJob } from '../inbound/processor.js';
import { channelsMigrations } from '../migrations.js';
import { type CapturedEmail, startSmtpStandIn } from '../testing/email/smtpStandIn.js';
import { createEmailReceiver } from './emailReceiver.js';
import { createEmailSmtpServer, type EmailSmtpServer } from './emailSmtpServer.js';

/**
 * The email channel end to end on loopback: a nodemailer client sends to Parley's SMTP server, the
 * worker's jobs (driven one at a time) run the turn on the real runtime, and the reply arrives at a
 * stand-in SMTP relay, threaded.
 */

let db: TestDatabase;
let brokenDb: TestDatabase;
let store: PostgresEventStore;
let connections: ConnectionStore;
let boss: PgBoss;
let server: EmailSmtpServer;
let brokenServer: EmailSmtpServer;
let tlsServer: EmailSmtpServer;
let tlsPort: number;
let port: number;
let brokenPort: number;
let relay: Awaited<ReturnType<typeof startSmtpStandIn>>;
let deps: InboundWorkerDeps;
let clock = Date.parse('2026-11-21T10:00:00.000Z');
let turns = 0;
const ids: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelsMigrations,
    channelInboundMigrations,
    channelEmailMigrations,
  ]);
  // A database without the inbound tables: storing a message there fails (the 451 path).
  brokenDb = await createTestDatabase([channelEmailMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  connections = createConnectionStore(db.pool, createKeyring(randomBytes(32)));
  relay = await startSmtpStandIn({ tls: 'starttls', auth: { user: 'relay-user', pass: 'relay-pass' } });
  const tenant = await auth.createTenant({ name: 'Acme' });
  const projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'email' })).id;
  const smtpSettings = {
    smtpHost: '127.0.0.1',
    smtpPort: relay.port,
    tlsMode: 'starttls',
    tlsRejectUnauthorized: false,
    senderName: 'Acme Support',
  };
  const create = async (address: string, settings: Record<string, unknown>, active = true) =>
    (
      await connections.create(projectId, {
        channelType: 'email',
        externalIdentifier: address,
        active,
        credentials: { smtpUsername: 'relay-user', smtpPassword: 'relay-pass' },
        settings: { ...smtpSettings, ...settings },
      })
    ).id;
  ids.support = await create('support@acme.example', { autoReplyThresholdSeconds: 0 });
  ids.sales = await create('sales@acme.example', {});
  ids.closed = await create('closed@acme.example', {}, false);

  const runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const adapters = new Map([
    ['email', createEmailAdapter({ pool: db.pool, now: () => new Date(clock), logger: silentLogger() })],
  ]);
  deps = {
    pool: db.pool,
    store,
    adapters,
    connections,
    runTurn: (req) => {
      turns += 1;
      return runtime.runTurn(req);
    },
    logger: silentLogger(),
  };
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureChannelQueues(boss, DEFAULT_CHANNEL_QUEUE_OPTIONS);
  const receiverOf = (pool: typeof db.pool) =>
    createEmailReceiver({
      pipeline: createInboundPipeline({ pool, boss, adapters, connections, logger: silentLogger() }),
      connections,
      threads: createEmailThreadStore(pool),
      logger: silentLogger(),
    });
  const serverOf = (pool: typeof db.pool) =>
    createEmailSmtpServer({
      receiver: receiverOf(pool),
      connections,
      logger: silentLogger(),
      host: '127.0.0.1',
      port: 0,
      maxMessageBytes: 64 * 1024,
    });
  server = serverOf(db.pool);
  port = await server.start();
  brokenServer = serverOf(brokenDb.pool);
  brokenPort = await brokenServer.start();
  // STARTTLS with smtp-server's built-in self-signed test certificate (as EMAIL_SMTP_TLS_KEY/CERT would give).
  const testTls = getTLSOptions();
  tlsServer = createEmailSmtpServer({
    receiver: receiverOf(db.pool),
    connections,
    logger: silentLogger(),
    host: '127.0.0.1',
    port: 0,
    tls: { key: testTls.key as string, cert: testTls.cert as string },
  });
  tlsPort = await tlsServer.start();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await brokenServer?.stop();
  await tlsServer?.stop();
  await relay?.close();
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await store?.close();
  await db?.close();
  await brokenDb?.close();
});

/** A mail client delivering to Parley's SMTP server (no TLS on loopback). */
const deliver = (message: SendMailOptions, toPort = port) =>
  nodemailer
    .createTransport({ host: '127.0.0.1', port: toPort, secure: false, ignoreTLS: true })
    .sendMail(message);

const refusalOf = async (sending: Promise<unknown>): Promise<number | undefined> =>
  sending.then(
    () => undefined,
    (err: { responseCode?: number }) => err.responseCode,
  );

async function inboundRows(connectionId: string, messageId: string) {
  const { rows } = await db.pool.query<{ external_session_key: string; reply_message_id: string | null }>(
    `select external_session_key, reply_message_id from channel_inbound_messages
     where connection_id = $1 and external_message_id = $2`,
    [connectionId, messageId],
  );
  return rows;
}

/** The worker's two jobs for one inbound email: the turn, then the reply's send. */
async function work(connectionId: string, messageId: string) {
  const job = await boss.getJobById<InboundJobData>(
    CHANNEL_INBOUND_QUEUE,
    inboundJobId(connectionId, messageId),
  );
  if (job === null) throw new Error(`no inbound job for ${messageId}`);
  await processInboundJob(deps, boss, job.data);
  const reply = (await inboundRows(connectionId, messageId))[0]?.reply_message_id;
  if (reply == null) throw new Error(`no reply to ${messageId}`);
  const send = await boss.getJobById<SendJobData>(CHANNEL_SEND_QUEUE, sendJobId(connectionId, reply));
  if (send === null) throw new Error(`no send job for ${messageId}`);
  return { job: job.data, sent: await processSendJob(deps, send.data, { retryCount: 0, retryLimit: 3 }) };
}

async function sessionOf(connectionId: string, key: string): Promise<string | undefined> {
  const { rows } = await db.pool.query<{ session_id: string }>(
    'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
    [connectionId, key],
  );
  return rows[0]?.session_id;
}

const lastCaptured = (): CapturedEmail => {
  const mail = relay.captured.at(-1);
  if (mail === undefined) throw new Error('nothing arrived at the relay');
  return mail;
};

describe('the email channel over SMTP', () => {
  it('queues a mail, answers it at the relay with threading headers, and resumes the session on a reply', async () => {
    await deliver({
      from: 'Alice <Alice@Customer.example>',
      to: 'Support@Acme.example',
      subject: 'Order 42',
      text: '/say Your order **ships** today, see [tracking](https://t.example/42)',
      messageId: '<m1.alice@customer.example>',
    });
    const [row] = await inboundRows(ids.support as string, 'm1.alice@customer.example');
    expect(row?.external_session_key).toBe('m1.alice@customer.example');

    const before = relay.captured.length;
    const first = await work(ids.support as string, 'm1.alice@customer.example');
    expect(first.sent).toBe('sent');
    expect(first.job.message).toMatchObject({
      channelUserId: 'alice@customer.example',
      metadata: { from: 'alice@customer.example', subject: 'Order 42', to: ['support@acme.example'] },
    });
    expect(relay.captured).toHaveLength(before + 1);
    const reply = lastCaptured();
    expect(reply.secure).toBe(true);
    expect(reply.user).toBe('relay-user');
    expect(reply.mailFrom).toBe('support@acme.example');
    expect(reply.rcptTo).toEqual(['alice@customer.example']);
    expect(reply.parsed.from?.text).toBe('"Acme Support" <support@acme.example>');
    expect(reply.parsed.subject).toBe('Re: Order 42');
    expect(reply.parsed.inReplyTo).toBe('<m1.alice@customer.example>');
    expect(reply.parsed.references).toBe('<m1.alice@customer.example>');
    expect(reply.parsed.headers.get('auto-submitted')).toBe('auto-replied');
    expect(reply.parsed.text?.trim()).toBe(
      '(scripted) Your order ships today, see tracking (https://t.example/42)',
    );
    const outboundId = reply.parsed.messageId ?? '';
    expect(outboundId).toMatch(/^<parley\.[0-9a-f-]{36}@acme\.example>$/);

    // Alice answers from her mail client: quoted history below, Re: Re: in the subject.
    await deliver({
      from: 'alice@customer.example',
      to: 'support@acme.example',
      subject: 'Re: Re: Order 42',
      text: `/say Glad to help\n\nOn Sat, 21 Nov 2026 at 10:00, Acme Support <support@acme.example> wrote:\n> Your order ships today\n`,
      messageId: '<m2.alice@customer.example>',
      inReplyTo: outboundId,
      references: ['<m1.alice@customer.example>', outboundId],
    });
    const second = await work(ids.support as string, 'm2.alice@customer.example');
    expect(second.job.message.externalSessionKey).toBe('m1.alice@customer.example');
    expect(second.job.message.text).toBe('/say Glad to help');
    const session = await sessionOf(ids.support as string, 'm1.alice@customer.example');
    const types: string[] = [];
    for await (const e of store.readStream(sessionStream(session ?? ''))) types.push(e.type);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(2);
    expect(types.filter((t) => t === 'ChannelMessageSent')).toHaveLength(2);
    const again = lastCaptured();
    expect(again.parsed.subject).toBe('Re: Order 42');
    expect(again.parsed.inReplyTo).toBe('<m2.alice@customer.example>');
    expect(again.parsed.references).toEqual([
      '<m1.alice@customer.example>',
      outboundId,
      '<m2.alice@customer.example>',
    ]);
  });

  it('starts a new session for a forwarded mail without threading headers', async () => {
    await deliver({
      from: 'carol@customer.example',
      to: 'support@acme.example',
      subject: 'Fwd: Order 42',
      text: '---------- Forwarded message ---------\nYour order ships today',
      messageId: '<fwd.carol@customer.example>',
    });
    const [row] = await inboundRows(ids.support as string, 'fwd.carol@customer.example');
    expect(row?.external_session_key).toBe('fwd.carol@customer.example');
  });

  it('refuses recipients that are not active email connections (no relaying)', async () => {
    const unknown = await refusalOf(
      deliver({ from: 'eve@evil.example', to: 'nobody@acme.example', subject: 'x', text: 'x' }),
    );
    expect(unknown).toBe(550);
    const relaying = await refusalOf(
      deliver({ from: 'eve@evil.example', to: 'victim@elsewhere.example', subject: 'x', text: 'x' }),
    );
    expect(relaying).toBe(550);
    const inactive = await refusalOf(
      deliver({ from: 'eve@evil.example', to: 'closed@acme.example', subject: 'x', text: 'x' }),
    );
    expect(inactive).toBe(550);
  });

  it('accepts but ignores auto-replies, bulk mail, bounces and our own mail', async () => {
    const ignored = [
      { messageId: '<auto.1@x.example>', headers: { 'Auto-Submitted': 'auto-replied' } },
      { messageId: '<auto.2@x.example>', headers: { 'Auto-Submitted': 'auto-generated; owner-email="a@x"' } },
      { messageId: '<auto.3@x.example>', headers: { Precedence: 'bulk' } },
      { messageId: '<auto.4@x.example>', headers: { 'X-Autoreply': 'yes' } },
    ];
    for (const mail of ignored) {
      await deliver({
        from: 'dave@x.example',
        to: 'support@acme.example',
        subject: 'Out of office',
        text: 'Away',
        ...mail,
      });
    }
    // A bounce: null envelope sender.
    await deliver({
      from: 'mailer-daemon@x.example',
      to: 'support@acme.example',
      subject: 'Undeliverable',
      text: 'failed',
      messageId: '<bounce.1@x.example>',
      envelope: { from: '', to: 'support@acme.example' },
    });
    // Our own address writing to us (e.g. sales@ answering support@).
    await deliver({
      from: 'sales@acme.example',
      to: 'support@acme.example',
      subject: 'Re: hi',
      text: 'hello',
      messageId: '<self.1@acme.example>',
    });
    const { rows } = await db.pool.query(
      `select external_message_id from channel_inbound_messages where external_message_id = any($1::text[])`,
      [
        [
          'auto.1@x.example',
          'auto.2@x.example',
          'auto.3@x.example',
          'auto.4@x.example',
          'bounce.1@x.example',
          'self.1@acme.example',
        ],
      ],
    );
    expect(rows).toEqual([]);
    // A copy of one of our own replies coming back with a rewritten From (a list or forwarder).
    // Asking for replies to one of our addresses; no sender address at all.
    await deliver({
      from: 'mallory@x.example',
      replyTo: 'sales@acme.example',
      to: 'support@acme.example',
      subject: 'Ping',
      text: 'pong',
      messageId: '<replyto.1@x.example>',
    });
    await deliver({
      to: 'support@acme.example',
      subject: 'Anonymous',
      text: 'who am I',
      messageId: '<nofrom.1@x.example>',
      envelope: { from: 'someone@x.example', to: 'support@acme.example' },
    });
    expect(await inboundRows(ids.support as string, 'replyto.1@x.example')).toEqual([]);
    expect(await inboundRows(ids.support as string, 'nofrom.1@x.example')).toEqual([]);
    const ownId = 'parley.own-reply@acme.example';
    await createEmailThreadStore(db.pool).record(ids.support as string, ownId, 'own-thread', 'outbound');
    await deliver({
      from: 'list@lists.example',
      to: 'support@acme.example',
      subject: 'Re: Order 42',
      text: 'our own words',
      messageId: `<${ownId}>`,
    });
    expect(await inboundRows(ids.support as string, ownId)).toEqual([]);
    // Auto-Submitted: no is a person's mail.
    await deliver({
      from: 'dave@x.example',
      to: 'support@acme.example',
      subject: 'Question',
      text: 'Hi',
      messageId: '<human.1@x.example>',
      headers: { 'Auto-Submitted': 'no' },
    });
    expect(await inboundRows(ids.support as string, 'human.1@x.example')).toHaveLength(1);
  });

  it('runs one turn for a Message-ID delivered twice', async () => {
    const mail = {
      from: 'erin@customer.example',
      to: 'support@acme.example',
      subject: 'Twice',
      text: 'hello twice',
      messageId: '<twice.erin@customer.example>',
    };
    await deliver(mail);
    await deliver(mail);
    expect(await inboundRows(ids.support as string, 'twice.erin@customer.example')).toHaveLength(1);
    const before = turns;
    await work(ids.support as string, 'twice.erin@customer.example');
    expect(turns - before).toBe(1);
  });

  it('keeps a mail with NUL bytes (header and body) with U+FFFD, recorded; never a 451 the sender retries forever', async () => {
    const raw = [
      'From: Nul Sender <nul@customer.example>',
      'To: support@acme.example',
      'Subject: Zero',
      'Message-ID: <nul\u0000id@customer.example>',
      'In-Reply-To: <unknown\u0000ref@customer.example>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'hello\u0000world',
      '',
    ].join('\r\n');
    await deliver({ envelope: { from: 'nul@customer.example', to: ['support@acme.example'] }, raw });
    const rows = await inboundRows(ids.support as string, 'nul\ufffdid@customer.example');
    expect(rows).toHaveLength(1);
    const job = await boss.getJobById<InboundJobData>(
      CHANNEL_INBOUND_QUEUE,
      inboundJobId(ids.support as string, 'nul\ufffdid@customer.example'),
    );
    expect(job?.data.message.text).toBe('hello\ufffdworld');
    expect(job?.data.message.metadata.unstorableTextReplaced).toEqual(
      expect.arrayContaining(['messageId', 'inReplyTo', 'text']),
    );
  });

  it('answers an address at most once per autoReplyThresholdSeconds; the other answers stay in the session', async () => {
    const ask = async (n: number) => {
      await deliver({
        from: 'frank@customer.example',
        to: 'sales@acme.example',
        subject: `Question ${n}`,
        text: `/say answer ${n}`,
        messageId: `<q${n}.frank@customer.example>`,
      });
      return work(ids.sales as string, `q${n}.frank@customer.example`);
    };
    const before = relay.captured.length;
    expect((await ask(1)).sent).toBe('sent');
    clock += 30_000;
    expect((await ask(2)).sent).toBe('suppressed');
    expect(relay.captured).toHaveLength(before + 1);
    const { rows } = await db.pool.query<{ outcome: string }>(
      `select outcome from channel_email_outbound where connection_id = $1 order by created_at`,
      [ids.sales],
    );
    expect(rows.map((r) => r.outcome)).toEqual(['sent', 'suppressed']);
    const session = await sessionOf(ids.sales as string, 'q2.frank@customer.example');
    const types: string[] = [];
    for await (const e of store.readStream(sessionStream(session ?? ''))) types.push(e.type);
    expect(types).toContain('AgentReplied');
    // The log says the reply was held back on purpose, not that it was sent.
    expect(types).toContain('ChannelSendSuppressed');
    expect(types).not.toContain('ChannelMessageSent');
    clock += 31_000;
    expect((await ask(3)).sent).toBe('sent');
    expect(relay.captured).toHaveLength(before + 2);
    expect(lastCaptured().parsed.text?.trim()).toBe('(scripted) answer 3');
  });

  it('refuses a message over the size limit with 552', async () => {
    const code = await refusalOf(
      deliver({
        from: 'gina@customer.example',
        to: 'support@acme.example',
        subject: 'Big',
        text: 'x'.repeat(100 * 1024),
        messageId: '<big.gina@customer.example>',
      }),
    );
    expect(code).toBe(552);
    expect(await inboundRows(ids.support as string, 'big.gina@customer.example')).toHaveLength(0);
  });

  it('offers STARTTLS when it has a key and certificate, and not otherwise', async () => {
    const starttls = (toPort: number) =>
      nodemailer
        .createTransport({
          host: '127.0.0.1',
          port: toPort,
          secure: false,
          requireTLS: true,
          tls: { rejectUnauthorized: false },
        })
        .sendMail({
          from: 'jo@customer.example',
          to: 'support@acme.example',
          subject: 'Encrypted',
          text: 'over TLS',
          messageId: `<tls.${toPort}@customer.example>`,
        });
    await starttls(tlsPort);
    expect(await inboundRows(ids.support as string, `tls.${tlsPort}@customer.example`)).toHaveLength(1);
    await expect(starttls(port)).rejects.toThrow();
    expect(await inboundRows(ids.support as string, `tls.${port}@customer.example`)).toHaveLength(0);
  });

  it('answers 451 when the message cannot be stored, so the sender retries', async () => {
    const code = await refusalOf(
      deliver(
        {
          from: 'hank@customer.example',
          to: 'support@acme.example',
          subject: 'Lost?',
          text: 'please keep me',
          messageId: '<retry.hank@customer.example>',
        },
        brokenPort,
      ),
    );
    expect(code).toBe(451);
  });
});
