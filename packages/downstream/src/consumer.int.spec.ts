import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeParleyEvents, type DeliveryInfo, type InvalidMessage } from './consumer.js';
import { type PublishedEvent, subjectToken } from './contract.js';
import { connectTestNats } from './testing/connectTestNats.js';

// Never mocked: the machine's NATS with JetStream (skipped loudly without one, fails with CI=true).
const connected = await connectTestNats('downstream consumer');
const nc = connected?.nc;

// Each test has its own stream and subject prefix (not `parley.>`: streams may not overlap, and the
// relay's tests own PARLEY_EVENTS).
const streams: string[] = [];
async function makeStream(): Promise<{ stream: string; prefix: string }> {
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const stream = `TEST_CONSUMER_${id}`;
  const prefix = `ctest${id}`;
  const jsm = await jetstreamManager(nc!);
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`] });
  streams.push(stream);
  return { stream, prefix };
}

let commit = 1000n;
function event(type: string, projectId = 'p1'): PublishedEvent {
  commit += 10n;
  return {
    eventId: randomUUID(),
    type,
    schemaVersion: 1,
    stream: `session-${randomUUID()}`,
    revision: '0',
    position: { commit: commit.toString(), prepare: commit.toString() },
    recordedAt: new Date().toISOString(),
    data: { n: Number(commit) },
    metadata: { tenantId: 't1', projectId },
  };
}

async function publish(prefix: string, e: PublishedEvent): Promise<void> {
  const h = headers();
  h.set('Nats-Msg-Id', e.eventId);
  const subject = [prefix, 't1', subjectToken(e.metadata.projectId as string), subjectToken(e.type)].join(
    '.',
  );
  await jetstream(nc!).publish(subject, JSON.stringify(e), { headers: h });
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterAll(async () => {
  if (!nc) return;
  const jsm = await jetstreamManager(nc);
  for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
  await nc.close();
});

describe.skipIf(!nc)('consumeParleyEvents (real NATS JetStream)', () => {
  beforeAll(() => undefined);

  it('delivers valid events in order, terminates invalid messages without stopping, acks, pending drops to 0', async () => {
    const { stream, prefix } = await makeStream();
    const events = [event('session.started'), event('message.added'), event('session.ended')];
    await publish(prefix, events[0]!);
    await jetstream(nc!).publish(`${prefix}.t1.p1.junk`, 'not json{');
    await publish(prefix, events[1]!);
    await jetstream(nc!).publish(`${prefix}.t1.p1.bad`, JSON.stringify({ ...events[1], eventId: '' }));
    await publish(prefix, events[2]!);

    const got: Array<{ event: PublishedEvent; delivery: DeliveryInfo }> = [];
    const invalid: InvalidMessage[] = [];
    const consumer = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'happy',
      handle: (e, delivery) => {
        got.push({ event: e, delivery });
      },
      onInvalid: (m) => invalid.push(m),
    });
    await until(() => got.length === 3 && invalid.length === 2);
    expect(got.map((g) => g.event)).toEqual(events);
    expect(got.map((g) => g.delivery.streamSequence)).toEqual([1, 3, 5]);
    expect(got[0]!.delivery).toEqual({
      subject: `${prefix}.t1.p1.session%2Estarted`,
      streamSequence: 1,
      deliveryCount: 1,
    });
    expect(invalid.map((m) => [m.streamSequence, m.subject])).toEqual([
      [2, `${prefix}.t1.p1.junk`],
      [4, `${prefix}.t1.p1.bad`],
    ]);
    expect(invalid[0]!.error).toMatch(/not JSON/);
    await until(() => true);
    expect(await consumer.pending()).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    const info = await consumer.info();
    expect(info.num_ack_pending).toBe(0);
    expect(info.ack_floor.stream_seq).toBe(5);
    await consumer.stop();
  });

  it('naks with a delay when handle throws and the event is redelivered', async () => {
    const { stream, prefix } = await makeStream();
    const e = event('message.added');
    await publish(prefix, e);
    const deliveries: number[] = [];
    const errors: unknown[] = [];
    const controller = new AbortController();
    const consumer = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'retry',
      nakDelayMs: (n) => n * 50,
      signal: controller.signal,
      handle: (_e, d) => {
        deliveries.push(d.deliveryCount);
        if (d.deliveryCount < 3) throw new Error(`fail ${d.deliveryCount}`);
      },
      onHandlerError: (err) => errors.push(err),
    });
    await until(() => deliveries.length === 3);
    expect(deliveries).toEqual([1, 2, 3]);
    expect(errors.map((x) => (x as Error).message)).toEqual(['fail 1', 'fail 2']);
    controller.abort();
    await consumer.done;
    expect((await consumer.info()).num_ack_pending).toBe(0);
  });

  it('a durable consumer resumes where it stopped; pending counts what is left', async () => {
    const { stream, prefix } = await makeStream();
    const events = Array.from({ length: 6 }, (_, i) => event(`t.n${i}`));
    for (const e of events.slice(0, 3)) await publish(prefix, e);
    const first: string[] = [];
    const c1 = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'resume',
      handle: (e) => {
        first.push(e.eventId);
      },
    });
    await until(() => first.length === 3);
    await c1.stop();
    for (const e of events.slice(3)) await publish(prefix, e);
    expect(await c1.pending()).toBe(3);
    const second: string[] = [];
    const c2 = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'resume',
      deliverFrom: 'all',
      handle: (e) => {
        second.push(e.eventId);
      },
    });
    await until(() => second.length === 3);
    expect([...first, ...second]).toEqual(events.map((e) => e.eventId));
    await c2.stop();
  });

  it("deliverFrom 'new', { position }, { startTime } and filterSubjects", async () => {
    const { stream, prefix } = await makeStream();
    const old = [event('a.x'), event('a.y', 'p2'), event('a.z')];
    for (const e of old) await publish(prefix, e);
    await new Promise((r) => setTimeout(r, 20));
    const cut = new Date();
    await new Promise((r) => setTimeout(r, 20));

    const fromNew: string[] = [];
    const cNew = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'new',
      deliverFrom: 'new',
      handle: (e) => void fromNew.push(e.eventId),
    });
    const fromPos: string[] = [];
    const p = old[0]!.position;
    const cPos = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'pos',
      deliverFrom: { position: `${p.commit}/${p.prepare}` },
      handle: (e) => void fromPos.push(e.eventId),
    });
    const fromTime: string[] = [];
    const cTime = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'time',
      deliverFrom: { startTime: cut },
      handle: (e) => void fromTime.push(e.eventId),
    });
    const p2: string[] = [];
    const cP2 = await consumeParleyEvents({
      nats: nc!,
      stream,
      durableName: 'p2',
      filterSubjects: [`${prefix}.*.p2.>`],
      handle: (e) => void p2.push(e.eventId),
    });
    const later = [event('b.x'), event('b.y', 'p2')];
    for (const e of later) await publish(prefix, e);

    await until(
      () => fromNew.length === 2 && fromPos.length === 4 && fromTime.length === 2 && p2.length === 2,
    );
    expect(fromNew).toEqual(later.map((e) => e.eventId));
    expect(fromPos).toEqual([...old.slice(1), ...later].map((e) => e.eventId));
    expect(fromTime).toEqual(later.map((e) => e.eventId));
    expect(p2).toEqual([old[1]!.eventId, later[1]!.eventId]);
    expect(await cP2.pending()).toBe(0);
    for (const c of [cNew, cPos, cTime, cP2]) await c.stop();
  });

  it('rejects a malformed deliverFrom position', async () => {
    const { stream } = await makeStream();
    await expect(
      consumeParleyEvents({
        nats: nc!,
        stream,
        durableName: 'bad',
        deliverFrom: { position: 'nope' },
        handle: () => undefined,
      }),
    ).rejects.toThrow(/commit\/prepare/);
  });
});
