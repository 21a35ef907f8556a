import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  channelEmailMigrations,
  channelInboundMigrations,
  channelsMigrations,
  createChannelAdapters,
  createConnectionStore,
  createKeyring,
} from '@parley/channels';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { createPriceCards, createProviderRegistry, createRuntime, runtimeMigrations } from '@parley/runtime';
import { type ParsedMail, simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorker, type Worker } from '../worker.js';

/**
 * The worker as `parley worker` runs it with EMAIL_SMTP_PORT set: its SMTP server takes a mail, its
 * channel queues run the turn and deliver the reply to a stand-in relay, with no test driving the jobs.
 */

let db: TestDatabase;
let store: PostgresEventStore;
let worker: Worker;
let relay: SMTPServer;
let smtpPort: number;
const captured: ParsedMail[] = [];

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  db = await createTestDatabase(
    [
      eventStoreMigrations,
      projectionRunnerMigrations,
      authMigrations,
      runtimeMigrations,
      channelsMigrations,
      channelInboundMigrations,
      channelEmailMigrations,
    ],
    { poolMax: 20 },
  );
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        captured.push(mail);
        callback();
      }, callback);
    },
  });
  const relayPort = await freePort();
  await new Promise<void>((resolve) => relay.listen(relayPort, '127.0.0.1', resolve));

  const auth = createAuthStore(db.pool);
  const connections = createConnectionStore(db.pool, createKeyring(randomBytes(32)));
  const tenant = await auth.createTenant({ name: 'Acme' });
  const projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'mail' })).id;
  await connections.create(projectId, {
    channelType: 'email',
    externalIdentifier: 'help@acme.example',
    settings: { smtpHost: '127.0.0.1', smtpPort: relayPort, tlsMode: 'none' },
  });
  const runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const adapters = createChannelAdapters({ pool: db.pool });
  smtpPort = await freePort();
  worker = createWorker({
    pool: db.pool,
    store,
    logger: silentLogger(),
    projections: [],
    batchSize: 100,
    pollIntervalMs: 100,
    channels: { adapters, connections, runTurn: (req) => runtime.runTurn(req), pollingIntervalSeconds: 0.5 },
    email: { adapters, connections, host: '127.0.0.1', port: smtpPort },
  });
  await worker.start();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
  await store?.close();
  await db?.close();
});

it('answers a mail sent to the worker’s SMTP server through the relay, in its thread', async () => {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true })
    .sendMail({
      from: 'ivy@customer.example',
      to: 'help@acme.example',
      subject: 'Opening hours',
      text: '/say We open at nine',
      messageId: '<hours.ivy@customer.example>',
    });
  const deadline = Date.now() + 20_000;
  while (captured.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(captured).toHaveLength(1);
  expect(captured[0]?.subject).toBe('Re: Opening hours');
  expect(captured[0]?.inReplyTo).toBe('<hours.ivy@customer.example>');
  expect(captured[0]?.text?.trim()).toBe('(scripted) We open at nine');
}, 30_000);
