#!/usr/bin/env node
// A minimal downstream subscriber of Parley's log over NATS JetStream (docs/downstream.md): Node 20+,
// depends only on @nats-io/transport-node and @nats-io/jetstream. A durable pull consumer (created on
// the first run, resumed afterwards) prints every event as one JSON line and acks it after printing.
// A message that is not a Parley event is terminated (never redelivered) and reported on stderr.
//
//   npm install @nats-io/transport-node @nats-io/jetstream
//   NATS_URL=nats://127.0.0.1:4222 DURABLE=my-service node nats-subscriber.mjs
//
// Environment:
//   NATS_URL      the NATS server (nats://127.0.0.1:4222)
//   NATS_STREAM   the JetStream stream (PARLEY_EVENTS)
//   DURABLE       the durable consumer's name: its place in the stream survives restarts (example)
//   FILTER        a subject filter, e.g. parley.<tenantId>.> or parley.*.*.SessionStarted (every event)
//   DELIVER       where a new durable starts: all (default) or new
//   MAX           exit after this many events (0: run until Ctrl-C)
//
// Each line on stdout is {"position":"<commit>/<prepare>","type","stream","eventId","subject",...}.
// Redeliveries happen (at-least-once): deduplicate by eventId where it matters.

import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const streamName = process.env.NATS_STREAM ?? 'PARLEY_EVENTS';
const durable = process.env.DURABLE ?? 'example';
const filter = process.env.FILTER ?? '';
const deliver = process.env.DELIVER === 'new' ? DeliverPolicy.New : DeliverPolicy.All;
const max = Number(process.env.MAX ?? 0);

const decimal = /^\d+$/;
/** The contract's checks (packages/downstream/src/contract.ts has the zod schema). */
function problemOf(e) {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return 'not an object';
  for (const key of ['eventId', 'type', 'stream', 'recordedAt']) {
    if (typeof e[key] !== 'string' || e[key] === '') return `${key} missing`;
  }
  if (!Number.isInteger(e.schemaVersion) || e.schemaVersion < 1) return 'schemaVersion invalid';
  if (typeof e.revision !== 'string' || !decimal.test(e.revision)) return 'revision invalid';
  if (!decimal.test(e.position?.commit ?? '') || !decimal.test(e.position?.prepare ?? ''))
    return 'position invalid';
  if (typeof e.data !== 'object' || e.data === null) return 'data missing';
  if (typeof e.metadata !== 'object' || e.metadata === null) return 'metadata missing';
  return null;
}

const nc = await connect({ servers, name: `parley-subscriber-${durable}` });
const jsm = await jetstreamManager(nc);
try {
  await jsm.consumers.info(streamName, durable);
} catch {
  await jsm.consumers.add(streamName, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: deliver,
    ...(filter ? { filter_subject: filter } : {}),
  });
}
const consumer = await jetstream(nc).consumers.get(streamName, durable);
const messages = await consumer.consume({ max_messages: 100 });
const stop = () => messages.close();
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
process.stderr.write(`subscribed: stream ${streamName}, durable ${durable}\n`);

let count = 0;
for await (const msg of messages) {
  let event;
  try {
    event = msg.json();
  } catch {
    event = undefined;
  }
  const problem = problemOf(event);
  if (problem !== null) {
    process.stderr.write(`invalid message ${msg.seq} on ${msg.subject}: ${problem}\n`);
    msg.term();
    continue;
  }
  const { position, type, stream, eventId, recordedAt, metadata } = event;
  process.stdout.write(
    `${JSON.stringify({ position: `${position.commit}/${position.prepare}`, type, stream, eventId, recordedAt, subject: msg.subject, tenantId: metadata.tenantId, projectId: metadata.projectId })}\n`,
  );
  // Ack after the work is done: a crash before this line means a redelivery, never a loss.
  msg.ack();
  count += 1;
  if (max > 0 && count >= max) break;
}
await nc.drain();
