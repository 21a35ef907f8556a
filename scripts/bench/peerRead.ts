import { randomUUID } from 'node:crypto';
import {
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
} from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';
import { openPeer } from './peer.js';

export interface PeerReadResult {
  events: number;
  batchSize: number;
  seedSeconds: { parley: number; peer: number };
  readAll: { parley: number; peer: number };
  catchUp: { parley: number; peer: number };
}

const TYPES = ['MessageReceived', 'AgentReplied', 'LlmCallRecorded', 'SessionStarted'];

function seedEvent(i: number): EventToAppend {
  return {
    eventId: randomUUID(),
    type: TYPES[i % TYPES.length]!,
    data: {
      sessionId: `bench-session-${i % 1000}`,
      text: 'Hello, I would like to change the delivery address of my order, please.',
      receivedAt: new Date().toISOString(),
    },
    metadata: { tenantId: 'bench-tenant', projectId: 'bench-project' },
  };
}

async function seed(
  events: number,
  append: (writer: number, batch: EventToAppend[]) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  const perWriter = Math.ceil(events / 4);
  await Promise.all(
    [0, 1, 2, 3].map(async (w) => {
      for (let done = 0; done < perWriter; done += 1000) {
        const n = Math.min(1000, perWriter - done);
        await append(
          w,
          Array.from({ length: n }, (_, i) => seedEvent(done + i)),
        );
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

const rate = async (events: () => Promise<number>) => {
  const started = performance.now();
  const n = await events();
  return n / ((performance.now() - started) / 1000);
};

/**
 * The same events in both logs; then, each Parley right before Emmett: read the whole log in
 * `batchSize` batches, and a catch-up from the beginning counting events per type (Parley's
 * subscribeAll, Emmett's consumer with a reactor), each in events/s.
 */
export async function benchPeerRead(
  pool: Pool,
  url: string,
  options: { events: number; batchSize: number },
  log: (line: string) => void,
): Promise<PeerReadResult> {
  await migrate(pool, [eventStoreMigrations]);
  const store = createPostgresEventStore({ pool, connectionString: url });
  const peer = await openPeer(url);
  try {
    const run = randomUUID().slice(0, 8);
    const revisions = new Map<number, bigint>();
    const parleySeed = await seed(options.events, async (w, batch) => {
      const r = await store.append(`seed-${run}-${w}`, batch);
      revisions.set(w, r.nextRevision);
    });
    const versions = new Map<number, bigint>();
    const peerSeed = await seed(options.events, async (w, batch) => {
      versions.set(w, await peer.append(`seed-${run}-${w}`, batch, versions.get(w) ?? 0n));
    });
    log(
      `peer-read: seeded ${options.events} events each (Parley ${parleySeed.toFixed(1)} s, Emmett ${peerSeed.toFixed(1)} s)`,
    );
    const total = Math.ceil(options.events / 4) * 4;

    const parleyRead = await rate(async () => {
      let after: Position | undefined;
      let read = 0;
      for (;;) {
        const batch = await store.readAll({ ...(after ? { after } : {}), maxCount: options.batchSize });
        read += batch.length;
        const last = batch.at(-1);
        if (!last || batch.length < options.batchSize) return read;
        after = last.position;
      }
    });
    const peerRead = await rate(() => peer.readAll(options.batchSize));
    log(`peer-read: read all: Parley ${Math.round(parleyRead)}/s, Emmett ${Math.round(peerRead)}/s`);

    const parleyCatchUp = await rate(async () => {
      const controller = new AbortController();
      const counts = new Map<string, number>();
      let seen = 0;
      for await (const event of store.subscribeAll({
        batchSize: options.batchSize,
        signal: controller.signal,
      })) {
        counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
        if (++seen >= total) controller.abort();
      }
      return seen;
    });
    const peerCatchUp = await rate(() => peer.catchUp(options.batchSize));
    log(`peer-read: catch-up: Parley ${Math.round(parleyCatchUp)}/s, Emmett ${Math.round(peerCatchUp)}/s`);
    return {
      events: total,
      batchSize: options.batchSize,
      seedSeconds: { parley: parleySeed, peer: peerSeed },
      readAll: { parley: parleyRead, peer: peerRead },
      catchUp: { parley: parleyCatchUp, peer: peerCatchUp },
    };
  } finally {
    await store.close();
    await peer.close();
  }
}
