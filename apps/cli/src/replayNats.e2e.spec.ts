import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { consumeParleyEvents, type PublishedEvent } from '@parley/downstream';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli as run } from './testing/runCli.js';

// Never mocked: the machine's NATS with JetStream at NATS_URL. Skipped loudly without one; CI=true fails.
const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
let nc: NatsConnection | undefined;
try {
  nc = await connect({ servers: natsUrl, timeout: 1_000, reconnect: false });
} catch (err) {
  if (process.env.CI === 'true')
    throw new Error(`NATS at ${natsUrl} does not answer (CI=true): ${String(err)}`);
  console.warn(
    `\n!!! SKIPPING parley replay --to-nats: NATS at ${natsUrl} does not answer (${String(err)}) !!!\n`,
  );
}

describe.skipIf(!nc)('parley replay --to-nats (real PostgreSQL, real NATS JetStream)', () => {
  let db: TestDatabase;
  // Its own stream and subject prefix: streams may not overlap, and `parley.>` belongs to the relay.
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const streamName = `TEST_REPLAY_${id}`;
  const prefix = `rtest${id}`;
  beforeAll(async () => {
    db = await createTestDatabase();
    const jsm = await jetstreamManager(nc!);
    await jsm.streams.add({ name: streamName, subjects: [`${prefix}.>`], duplicate_window: 120_000_000_000 });
  });
  afterAll(async () => {
    const jsm = await jetstreamManager(nc!);
    await jsm.streams.delete(streamName).catch(() => undefined);
    await nc!.close();
    await db.close();
  });

  it('republishes a filtered range with the relay subjects and payloads; repeats dropped unless --msg-id-suffix', async () => {
    const env = cleanEnv({ DATABASE_URL: db.url, NATS_URL: natsUrl });
    expect((await run(['migrate'], env)).code).toBe(0);
    const seeded = await run(['seed', '--sessions', '3', '--json'], env);
    expect(seeded.code, seeded.stderr).toBe(0);

    const lines = (await run(['replay', '--type', 'SessionStarted,SessionEnded'], env)).stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as Record<string, unknown> & { position: string; metadata: Record<string, string> },
      );
    const n = lines.length;
    expect(n).toBeGreaterThanOrEqual(6);

    const args = [
      'replay',
      '--to-nats',
      '--type',
      'SessionStarted,SessionEnded',
      '--nats-stream',
      streamName,
    ];
    const first = await run([...args, '--subject-prefix', prefix], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(new RegExp(`published ${n} events to NATS stream ${streamName}\\n`));

    const got: Array<{ event: PublishedEvent; subject: string }> = [];
    const consumer = await consumeParleyEvents({
      nats: nc!,
      stream: streamName,
      durableName: 'e2e',
      handle: (event, d) => {
        got.push({ event, subject: d.subject });
      },
    });
    const until = Date.now() + 10_000;
    while (got.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(got.map((g) => g.event.eventId)).toEqual(lines.map((l) => l.eventId));
    for (const [i, { event, subject }] of got.entries()) {
      const line = lines[i]!;
      expect(`${event.position.commit}/${event.position.prepare}`).toBe(line.position);
      expect(event).toMatchObject({
        type: line.type,
        stream: line.stream,
        revision: line.revision,
        schemaVersion: line.schemaVersion,
        recordedAt: line.recordedAt,
        data: line.data,
        metadata: line.metadata,
      });
      expect(subject).toBe(`${prefix}.${line.metadata.tenantId}.${line.metadata.projectId}.${line.type}`);
    }

    // Again within the duplicate window: JetStream drops every message (same Nats-Msg-Id).
    const again = await run([...args, '--subject-prefix', prefix], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`published 0 events to NATS stream \\S+ \\(${n} dropped by JetStream as duplicates`),
    );
    // With a suffix they are new messages.
    const rebuilt = await run([...args, '--subject-prefix', prefix, '--msg-id-suffix', 'rebuild-1'], env);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toMatch(new RegExp(`published ${n} events`));
    const end = Date.now() + 10_000;
    while (got.length < 2 * n && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(got.map((g) => g.event.eventId)).toEqual([...lines, ...lines].map((l) => l.eventId));
    await consumer.stop();
  }, 120_000);

  it('exits 2 without NATS_URL, with a bad prefix, and 1 when the stream does not exist', async () => {
    const noNats = await run(['replay', '--to-nats'], cleanEnv({ DATABASE_URL: db.url }));
    expect(noNats.code).toBe(2);
    expect(noNats.stderr).toMatch(/--to-nats needs NATS_URL/);
    const env = cleanEnv({ DATABASE_URL: db.url, NATS_URL: natsUrl });
    const badPrefix = await run(['replay', '--to-nats', '--subject-prefix', 'a.b'], env);
    expect(badPrefix.code).toBe(2);
    expect(badPrefix.stderr).toMatch(/--subject-prefix must be one subject token/);
    const noStream = await run(
      [
        'replay',
        '--to-nats',
        '--nats-stream',
        `NOPE_${id}`,
        '--subject-prefix',
        `nope${id}`,
        '--type',
        'SessionStarted',
      ],
      env,
    );
    expect(noStream.code).toBe(1);
    expect(noStream.stderr).toMatch(/no responders|stream|503/i);
  }, 60_000);
});
