import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats } from '@nats-io/transport-node';
import { downstreamMigrations, readCheckpoint } from '@parley/downstream';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { afterAll, expect, it } from 'vitest';
import { createWorker } from './worker.js';

/**
 * The worker as `parley worker` runs it with NATS_URL set: its relay publishes the log to JetStream
 * (the relay's own spec, packages/downstream, covers outages and duplicates). The checkpoint reaching
 * the head means JetStream acknowledged every event.
 */
const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const reachable = await new Promise<boolean>((resolve) => {
  const u = new URL(natsUrl);
  const socket = connect(Number(u.port || 4222), u.hostname);
  socket.setTimeout(1_000);
  socket
    .once('connect', () => {
      socket.destroy();
      resolve(true);
    })
    .once('error', () => resolve(false))
    .once('timeout', () => resolve(false));
});
if (!reachable) {
  if (process.env.CI === 'true') throw new Error(`NATS at ${natsUrl} does not answer (CI=true)`);
  console.warn(`\n!!! SKIPPING worker downstream: NATS at ${natsUrl} does not answer !!!\n`);
}

let db: TestDatabase | undefined;
let store: PostgresEventStore | undefined;
afterAll(async () => {
  await store?.close();
  await db?.close();
});

it.skipIf(!reachable)('relays the log to NATS JetStream when downstream is set', async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations, downstreamMigrations]);
  store = createPostgresEventStore({ pool: db.pool, pollIntervalMs: 50 });
  const tenant = `w${randomUUID().replaceAll('-', '')}`;
  const streamName = `PARLEY_T_W${randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`;
  const worker = createWorker({
    pool: db.pool,
    store,
    logger: silentLogger(),
    projections: [],
    batchSize: 100,
    pollIntervalMs: 100,
    downstream: {
      nats: { servers: natsUrl },
      stream: { name: streamName, subjects: [`parley.${tenant}.>`] },
    },
  });
  await worker.start();
  try {
    await store.append(`s-${randomUUID()}`, [
      { eventId: randomUUID(), type: 'test.one', data: {}, metadata: { tenantId: tenant, projectId: 'p' } },
      { eventId: randomUUID(), type: 'test.two', data: {}, metadata: { tenantId: tenant, projectId: 'p' } },
    ]);
    const until = Date.now() + 10_000;
    // The head readers see trails an append while an older transaction of the cluster is open (docs/log.md).
    let head = await store.head();
    while (!head && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 25));
      head = await store.head();
    }
    expect(head).not.toBeNull();
    while (Date.now() < until) {
      const checkpoint = await readCheckpoint(db.pool, 'nats');
      if (
        checkpoint !== undefined &&
        checkpoint.commit === head?.position.commit &&
        checkpoint.prepare === head?.position.prepare
      )
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await readCheckpoint(db.pool, 'nats')).toEqual(head?.position);
    const nc = await connectNats({ servers: natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.info(streamName)).state.messages).toBe(2);
      await jsm.streams.delete(streamName);
    } finally {
      await nc.close();
    }
  } finally {
    await worker.stop();
  }
});
