import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import type { PublishedEvent } from './contract.js';
import { connectTestNats } from './testing/connectTestNats.js';

// docs/examples/nats-subscriber.mjs run as a user would (a child process) against the machine's NATS.
const example = resolve(import.meta.dirname, '../../../docs/examples/nats-subscriber.mjs');
const connected = await connectTestNats('docs/examples/nats-subscriber.mjs');
const nc = connected?.nc;
const id = randomUUID().replaceAll('-', '').slice(0, 12);
const streamName = `TEST_EXAMPLE_${id}`;
const prefix = `etest${id}`;

function runExample(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [example], {
      env: { PATH: process.env.PATH, NATS_URL: connected!.url, NATS_STREAM: streamName, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`example timed out\n${stdout}\n${stderr}`));
    }, 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

let commit = 500n;
async function publish(type: string, projectId = 'p1'): Promise<PublishedEvent> {
  commit += 7n;
  const e: PublishedEvent = {
    eventId: randomUUID(),
    type,
    schemaVersion: 1,
    stream: `session-${randomUUID()}`,
    revision: '3',
    position: { commit: commit.toString(), prepare: (commit + 1n).toString() },
    recordedAt: new Date().toISOString(),
    data: {},
    metadata: { tenantId: 't1', projectId },
  };
  const h = headers();
  h.set('Nats-Msg-Id', e.eventId);
  await jetstream(nc!).publish(`${prefix}.t1.${projectId}.${type}`, JSON.stringify(e), { headers: h });
  return e;
}

afterAll(async () => {
  if (!nc) return;
  await (await jetstreamManager(nc)).streams.delete(streamName).catch(() => undefined);
  await nc.close();
});

describe.skipIf(!nc)('docs/examples/nats-subscriber.mjs (real NATS JetStream)', () => {
  it('prints every event once, in order, reports invalid messages, resumes its durable, honours FILTER', async () => {
    await (await jetstreamManager(nc!)).streams.add({ name: streamName, subjects: [`${prefix}.>`] });
    const first = [await publish('SessionStarted'), await publish('MessageAdded', 'p2')];
    await jetstream(nc!).publish(`${prefix}.t1.p1.Junk`, '{"eventId":"x"}');
    first.push(await publish('SessionEnded'));

    const run1 = await runExample({ DURABLE: 'svc', MAX: '3' });
    expect(run1.code, run1.stderr).toBe(0);
    const lines = run1.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(
      first.map((e) => ({
        position: `${e.position.commit}/${e.position.prepare}`,
        type: e.type,
        stream: e.stream,
        eventId: e.eventId,
        recordedAt: e.recordedAt,
        subject: `${prefix}.t1.${e.metadata.projectId}.${e.type}`,
        tenantId: 't1',
        projectId: e.metadata.projectId,
      })),
    );
    expect(run1.stderr).toMatch(new RegExp(`invalid message 3 on ${prefix}\\.t1\\.p1\\.Junk: type missing`));

    // The durable resumes after what it acked.
    const later = await publish('SessionStarted');
    const run2 = await runExample({ DURABLE: 'svc', MAX: '1' });
    expect(run2.code, run2.stderr).toBe(0);
    expect(
      run2.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).eventId),
    ).toEqual([later.eventId]);
    const info = await (await jetstreamManager(nc!)).consumers.info(streamName, 'svc');
    expect(info.num_pending).toBe(0);
    expect(info.num_ack_pending).toBe(0);

    // A new durable with a filter sees only that project's events.
    const run3 = await runExample({ DURABLE: 'p2only', FILTER: `${prefix}.*.p2.>`, MAX: '1' });
    expect(run3.code, run3.stderr).toBe(0);
    expect(
      run3.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).eventId),
    ).toEqual([first[1]!.eventId]);
  }, 60_000);
});
