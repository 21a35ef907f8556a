import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { RecordedEvent } from '@parley/eventstore';
import { DEFAULT_STREAM_NAME, SUBJECT_PREFIX, subjectOf, toPublishedEvent } from './contract.js';

/**
 * Republishes recorded events to the JetStream stream (`parley replay --to-nats`): the relay's subjects
 * and payloads, `Nats-Msg-Id` = the event id (plus `:<msgIdSuffix>` when given). JetStream drops a
 * message whose id it has seen within the stream's duplicate window, so without a suffix a replay of
 * events the relay published within the window is (correctly) a no-op for them; a suffix makes every
 * message new (consumers then see those events twice and must dedupe by eventId, as they should).
 */
export interface ReplayPublisherOptions {
  /** An open connection, or the NATS_URL to connect to (closed by close()). */
  nats: NatsConnection | string;
  stream?: string;
  msgIdSuffix?: string;
  /** The first subject token instead of `parley` (a second Parley or a test sharing the NATS). */
  subjectPrefix?: string;
  /** Publishes awaiting their ack at once (order is kept: one connection). Default 256. */
  maxInFlight?: number;
  /** Per-publish ack timeout (ms). Default 10 s. */
  timeoutMs?: number;
}

export interface ReplayPublisher {
  publish(event: RecordedEvent): Promise<void>;
  /** Waits for every ack, then closes a connection it opened. Returns the counts. */
  close(): Promise<{ published: number; duplicates: number }>;
}

export async function openReplayPublisher(options: ReplayPublisherOptions): Promise<ReplayPublisher> {
  const owned = typeof options.nats === 'string';
  const nc =
    typeof options.nats === 'string'
      ? await connect({ servers: options.nats, timeout: 5_000 })
      : options.nats;
  const js = jetstream(nc);
  const streamName = options.stream ?? DEFAULT_STREAM_NAME;
  const maxInFlight = options.maxInFlight ?? 256;
  const prefix = options.subjectPrefix ?? SUBJECT_PREFIX;
  const inFlight: Array<Promise<{ duplicate: boolean }>> = [];
  let published = 0;
  let duplicates = 0;
  let failure: unknown;

  const settleOldest = async () => {
    const ack = await inFlight.shift()!;
    if (ack.duplicate) duplicates += 1;
    else published += 1;
  };
  return {
    async publish(event) {
      if (failure !== undefined) throw failure;
      const subject = subjectOf(event, prefix);
      const msgID = options.msgIdSuffix ? `${event.eventId}:${options.msgIdSuffix}` : event.eventId;
      const pending = js.publish(subject, JSON.stringify(toPublishedEvent(event)), {
        msgID,
        expect: { streamName },
        timeout: options.timeoutMs ?? 10_000,
      });
      // Observed now so that a rejection is never unhandled; rethrown in order by settleOldest.
      pending.catch((err: unknown) => {
        failure ??= err;
      });
      inFlight.push(pending);
      if (inFlight.length >= maxInFlight) await settleOldest();
    },
    async close() {
      try {
        while (inFlight.length > 0) await settleOldest();
      } finally {
        if (owned) await nc.close();
      }
      return { published, duplicates };
    },
  };
}
