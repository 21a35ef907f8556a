import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  comparePositions,
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  parsePosition,
} from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downstreamMigrations, readCheckpoint } from './checkpoints.js';
import { publishedEventSchema } from './contract.js';
import { createNatsRelay } from './relay.js';
import { connectTestNats } from './testing/connectTestNats.js';

const nats = await connectTestNats('downstream relay');
let nc: NatsConnection;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(() => {
  if (nats) nc = nats.nc;
});
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  await nc?.close();
});

/** A TCP proxy in front of NATS that the test cuts (every connection dropped, none accepted) and restores. */
async function natsProxy(url: string) {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      const srv = createServer((client) => {
        const upstream = tcpConnect(Number(target.port || 4222), target.hostname);
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        client.pipe(upstream).pipe(client);
      });
      server = srv;
      srv.listen(port, '127.0.0.1', () => {
        port = (srv.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (server) server.close(() => resolve());
      else resolve();
      server = undefined;
    });
  return { url: () => `nats://127.0.0.1:${port}`, cut: close, restore: listen, close };
}

async function world() {
  const db: TestDatabase = await createTestDatabase([eventStoreMigrations, downstreamMigrations]);
  const store = createPostgresEventStore({ pool: db.pool, pollIntervalMs: 50 });
  cleanup.push(
    () => db.close(),
    () => store.close(),
  );
  const tenant = `t${randomUUID().replaceAll('-', '')}`;
  const streamName = `PARLEY_T_${randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`;
  const jsm = await jetstreamManager(nc);
  cleanup.push(() => jsm.streams.delete(streamName));
  const events = (n: number, projectId: string): EventToAppend[] =>
    Array.from({ length: n }, (_, i) => ({
      eventId: randomUUID(),
      type: 'test.happened',
      data: { i },
      metadata: { tenantId: tenant, projectId },
    }));
  /** Every message in the stream, in stream order. */
  async function messages() {
    const js = jetstream(nc);
    const info = await jsm.streams.info(streamName);
    const total = info.state.messages;
    const out: { msgId: string; subject: string; event: ReturnType<typeof publishedEventSchema.parse> }[] =
      [];
    if (total === 0) return out;
    const consumer = await js.consumers.get(streamName);
    const iter = await consumer.fetch({ max_messages: total, expires: 5_000 });
    for await (const m of iter) {
      out.push({
        msgId: m.headers?.get('Nats-Msg-Id') ?? '',
        subject: m.subject,
        event: publishedEventSchema.parse(m.json()),
      });
      if (out.length === total) break;
    }
    return out;
  }
  return { db, store, tenant, streamName, jsm, events, messages };
}

/**
 * Until the relay has published through `position` (the last event the test appended). Not `lag === 0`:
 * lag counts the events readers may see, and a transaction open anywhere in the PostgreSQL cluster
 * (another spec file's) keeps the newest ones from them, so lag can be 0 before they are published.
 */
async function publishedThrough(
  relay: { status(): Promise<{ lastPublished: string | null }> },
  position: Position,
) {
  await eventually(async () => {
    const { lastPublished } = await relay.status();
    return lastPublished !== null && comparePositions(parsePosition(lastPublished), position) >= 0;
  }, 60_000);
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(nats === null)('NATS relay', () => {
  it('publishes every event exactly once, in log order per subject, across a NATS outage mid-stream', async () => {
    const w = await world();
    const proxy = await natsProxy(nats?.url as string);
    cleanup.push(proxy.close);
    const relay = createNatsRelay({
      store: w.store,
      pool: w.db.pool,
      nats: { servers: proxy.url(), ignoreClusterUpdates: true, reconnectTimeWait: 100 },
      stream: { name: w.streamName, subjects: [`parley.${w.tenant}.>`] },
      logger: silentLogger(),
      batchSize: 50,
      publishTimeoutMs: 1_000,
      backoffMinMs: 50,
      backoffMaxMs: 500,
    });
    cleanup.push(() => relay.stop());
    await relay.start();

    const appended: string[] = [];
    let last: Position | undefined;
    const append = async (stream: string, n: number, project: string) => {
      const batch = w.events(n, project);
      last = (await w.store.append(stream, batch)).position;
      appended.push(...batch.map((e) => e.eventId));
    };
    for (let i = 0; i < 20; i++) await append(`s-${i % 3}`, 10, `p${i % 2}`);
    // Cut mid-stream: some of it published, the rest not.
    await eventually(async () => (await relay.status()).published > 0);
    await proxy.cut();
    for (let i = 20; i < 40; i++) await append(`s-${i % 3}`, 10, `p${i % 2}`);
    await eventually(async () => (await relay.status()).paused);
    const during = await relay.status();
    expect(during.lag).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 500));
    await proxy.restore();
    await publishedThrough(relay, last!);

    const status = await relay.status();
    expect(status.failures).toBeGreaterThan(0);
    expect(status.paused).toBe(false);
    const msgs = await w.messages();
    expect(msgs).toHaveLength(appended.length);
    expect(new Set(msgs.map((m) => m.msgId))).toEqual(new Set(appended));
    for (const m of msgs) expect(m.msgId).toBe(m.event.eventId);
    // Log order per subject (and overall: one publisher, one connection).
    const bySubject = new Map<string, bigint[][]>();
    for (const m of msgs) {
      expect(m.subject).toBe(`parley.${w.tenant}.${m.event.metadata.projectId}.test%2Ehappened`);
      const list = bySubject.get(m.subject) ?? [];
      list.push([BigInt(m.event.position.commit), BigInt(m.event.position.prepare)]);
      bySubject.set(m.subject, list);
    }
    for (const list of bySubject.values())
      for (let i = 1; i < list.length; i++) {
        const [a, b] = [list[i - 1] as bigint[], list[i] as bigint[]];
        expect(
          comparePositions(
            { commit: a[0] as bigint, prepare: a[1] as bigint },
            { commit: b[0] as bigint, prepare: b[1] as bigint },
          ),
        ).toBeLessThan(0);
      }
    const head = await w.store.head();
    expect(await readCheckpoint(w.db.pool, 'nats')).toEqual(head?.position);
    expect(status.lastPublished).not.toBeNull();
  }, 90_000);

  it('a restart from an older checkpoint (crash between ack and checkpoint) adds no duplicates', async () => {
    const w = await world();
    const settings = { name: w.streamName, subjects: [`parley.${w.tenant}.>`] };
    const relay = createNatsRelay({
      store: w.store,
      pool: w.db.pool,
      nats: { servers: nats?.url },
      stream: settings,
      logger: silentLogger(),
    });
    const first = await w.store.append('s-1', w.events(30, 'p'));
    await relay.start();
    await publishedThrough(relay, first.position);
    await relay.stop();
    expect(await w.messages()).toHaveLength(30);
    await w.db.pool.query('delete from downstream_checkpoints');
    const again = createNatsRelay({
      store: w.store,
      pool: w.db.pool,
      nats: { servers: nats?.url },
      stream: settings,
      logger: silentLogger(),
    });
    cleanup.push(() => again.stop());
    const second = await w.store.append('s-2', w.events(5, 'p'));
    await again.start();
    await publishedThrough(again, second.position);
    expect(await w.messages()).toHaveLength(35);
  }, 90_000);

  it('never advances the checkpoint past an event whose publish was not acknowledged', async () => {
    const w = await world();
    // The stream captures only project `kept`; events of another project get no PubAck (no stream).
    const relay = createNatsRelay({
      store: w.store,
      pool: w.db.pool,
      nats: { servers: nats?.url },
      stream: { name: w.streamName, subjects: [`parley.${w.tenant}.kept.>`] },
      logger: silentLogger(),
      publishTimeoutMs: 500,
      backoffMinMs: 50,
      backoffMaxMs: 100,
    });
    cleanup.push(() => relay.stop());
    // The append's own position: head() gives the settled end, which another transaction open on
    // the cluster (a parallel test) can hold behind this append for a moment.
    const first = await w.store.append('s-1', w.events(3, 'kept'));
    await w.store.append('s-2', w.events(2, 'lost'));
    await relay.start();
    await eventually(async () => (await relay.status()).failures >= 2);
    const status = await relay.status();
    expect(status.paused).toBe(true);
    expect(status.lag).toBe(2);
    expect(await readCheckpoint(w.db.pool, 'nats')).toEqual(first.position);
    expect(await w.messages()).toHaveLength(3);
  });

  it('creates the stream with its settings, and updates them at the next start', async () => {
    const w = await world();
    const base = { name: w.streamName, subjects: [`parley.${w.tenant}.>`] };
    const make = (stream: object) =>
      createNatsRelay({
        store: w.store,
        pool: w.db.pool,
        nats: { servers: nats?.url },
        stream,
        logger: silentLogger(),
      });
    const a = make({ ...base, maxAgeMs: 86_400_000, maxMsgs: 1000, duplicateWindowMs: 60_000 });
    await a.start();
    await eventually(
      async () =>
        await w.jsm.streams.info(w.streamName).then(
          () => true,
          () => false,
        ),
    );
    await a.stop();
    let info = await w.jsm.streams.info(w.streamName);
    expect(info.config.max_age).toBe(86_400_000 * 1_000_000);
    expect(info.config.max_msgs).toBe(1000);
    expect(info.config.duplicate_window).toBe(60_000 * 1_000_000);
    expect(info.config.retention).toBe('limits');
    const b = make({ ...base, maxBytes: 1_000_000 });
    await b.start();
    await eventually(async () => (await w.jsm.streams.info(w.streamName)).config.max_bytes === 1_000_000);
    await b.stop();
    info = await w.jsm.streams.info(w.streamName);
    expect(info.config.max_age).toBe(0);
    expect(info.config.duplicate_window).toBe(120_000 * 1_000_000);
  });
});
