import { randomUUID } from 'node:crypto';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createNatsRelay, downstreamMigrations } from '@parley/downstream';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { migrate, type Pool, silentLogger } from '@parley/platform';

export interface NatsBenchResult {
  /** Catch-up: events already in the log, relayed from the start. */
  events: number;
  catchUpSeconds: number;
  eventsPerSecond: number;
  /** Steady ingest: append returned → the message delivered to a JetStream consumer. */
  steadyEventsPerSecond: number;
  messages: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * The NATS relay (docs/downstream.md) against a real NATS server: (1) `events` events already in the
 * log, relayed from the start (events/s until the relay's lag is 0); (2) steady ingest, `writers` loops
 * appending `batch` events every `intervalMs`, and the head-to-NATS lag of each event: from its append
 * returning (committed) to its message reaching an ordered JetStream consumer. The stream is a bench
 * stream of its own (subjects `parley.<bench tenant>.>`), deleted afterwards.
 */
export async function benchNats(
  pool: Pool,
  connectionString: string,
  options: {
    natsUrl: string;
    events: number;
    seconds: number;
    writers: number;
    batch: number;
    intervalMs: number;
  },
  log: (line: string) => void,
): Promise<NatsBenchResult> {
  await migrate(pool, [eventStoreMigrations, downstreamMigrations]);
  const store = createPostgresEventStore({ pool, connectionString });
  const tenant = `bench${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const streamName = `PARLEY_BENCH_${tenant.toUpperCase()}`;
  const nc = await connect({ servers: options.natsUrl });
  const jsm = await jetstreamManager(nc);
  const event = (i: number, projectId: string) => ({
    eventId: randomUUID(),
    type: 'MessageReceived',
    data: { i, text: 'relayed to NATS' },
    metadata: { tenantId: tenant, projectId },
  });
  const relay = createNatsRelay({
    store,
    pool,
    nats: { servers: options.natsUrl },
    stream: { name: streamName, subjects: [`parley.${tenant}.>`] },
    logger: silentLogger(),
  });
  try {
    log(`nats: seeding ${options.events} events…`);
    for (let done = 0; done < options.events; done += 1000) {
      const n = Math.min(1000, options.events - done);
      await store.append(
        `nats-seed-${done}`,
        Array.from({ length: n }, (_, i) => event(done + i, `p${i % 8}`)),
      );
    }
    const started = performance.now();
    await relay.start();
    while ((await relay.status()).lag > 0) await new Promise((r) => setTimeout(r, 20));
    const catchUpSeconds = (performance.now() - started) / 1000;
    log(`nats: catch-up ${options.events} events in ${catchUpSeconds.toFixed(2)} s`);

    // Steady ingest, each message timed when an ordered consumer gets it.
    const info = await jsm.streams.info(streamName);
    const consumer = await jetstream(nc).consumers.get(streamName, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: info.state.last_seq + 1,
    });
    // Arrival and append times are matched at the end: a message can reach the consumer before its
    // append's promise resumes the writer (then its lag counts as 0).
    const appendedAt = new Map<string, number>();
    const arrivedAt = new Map<string, number>();
    const messages = await consumer.consume();
    const consuming = (async () => {
      for await (const m of messages) arrivedAt.set(m.headers?.get('Nats-Msg-Id') ?? '', performance.now());
    })();
    let appended = 0;
    const deadline = performance.now() + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.writers }, async (_, w) => {
        const stream = `nats-steady-${w}-${randomUUID()}`;
        for (let next = performance.now(); next < deadline; next += options.intervalMs) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const events = Array.from({ length: options.batch }, (_, i) => event(i, `p${w % 8}`));
          await store.append(stream, events);
          const now = performance.now();
          for (const e of events) appendedAt.set(e.eventId, now);
          appended += events.length;
        }
      }),
    );
    const settle = performance.now() + 10_000;
    const arrived = () => [...appendedAt.keys()].filter((id) => arrivedAt.has(id)).length;
    while (arrived() < appended && performance.now() < settle) await new Promise((r) => setTimeout(r, 50));
    await messages.close();
    await consuming;
    if (arrived() < appended) throw new Error(`${appended - arrived()} events never reached NATS`);
    const lags = [...appendedAt].map(([id, at]) => Math.max(0, (arrivedAt.get(id) as number) - at));
    const sorted = lags.sort((a, b) => a - b);
    return {
      events: options.events,
      catchUpSeconds,
      eventsPerSecond: options.events / catchUpSeconds,
      steadyEventsPerSecond: appended / options.seconds,
      messages: sorted.length,
      p50: quantile(sorted, 0.5),
      p95: quantile(sorted, 0.95),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? 0,
    };
  } finally {
    await relay.stop();
    await jsm.streams.delete(streamName).catch(() => {});
    await nc.close();
    await store.close();
  }
}
