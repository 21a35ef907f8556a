import { randomUUID } from 'node:crypto';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../types.js';
import { enqueueInbound } from './enqueueInbound.js';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  createChannelJobQueue,
  createChannelJobWakeups,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
} from './jobs.js';
import { channelInboundMigrations } from './migrations.js';

/** A webhook's message: its statement commits, then the workers' wake-up follows (coalesced). */
let db: TestDatabase;
let boss: PgBoss;

beforeAll(async () => {
  db = await createTestDatabase([channelInboundMigrations]);
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureChannelQueues(boss, DEFAULT_CHANNEL_QUEUE_OPTIONS);
});
afterAll(async () => {
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await db?.close();
});

const message = (id: string): NormalizedMessage => ({
  externalMessageId: id,
  externalSessionKey: 'user-1',
  text: 'hello',
  metadata: {},
  timestamp: '2026-11-27T04:00:00.000Z',
});

describe('enqueueInbound with the coalesced wake-ups', () => {
  it('wakes the workers after the commit (the listener finds the job), and not for a duplicate', async () => {
    const connection = { id: randomUUID(), channelType: 'whatsapp' };
    const wakeups = createChannelJobWakeups(db.pool, silentLogger());
    const listener = await db.pool.connect();
    const woken: Array<{ payload: string | undefined; jobs: number }> = [];
    let reading = Promise.resolve();
    listener.on('notification', (n) => {
      reading = reading.then(async () => {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pgboss.job where name = $1 and data->>'connectionId' = $2`,
          [CHANNEL_INBOUND_QUEUE, connection.id],
        );
        woken.push({ payload: n.payload, jobs: rows[0]?.n ?? 0 });
      });
    });
    try {
      await listener.query(`listen ${CHANNEL_JOBS_NOTIFY_CHANNEL}`);
      expect(await enqueueInbound(db.pool, boss, connection, message('m-1'), new Date(), wakeups)).toBe(true);
      while (woken.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(woken).toEqual([{ payload: CHANNEL_INBOUND_QUEUE, jobs: 1 }]);
      expect(await enqueueInbound(db.pool, boss, connection, message('m-1'), new Date(), wakeups)).toBe(
        false,
      );
      // Nothing pending: closing sends no notification for the duplicate.
      await wakeups.close();
      await listener.query('select 1');
      await reading;
      expect(woken).toHaveLength(1);
    } finally {
      listener.release(true);
    }
  });
});
