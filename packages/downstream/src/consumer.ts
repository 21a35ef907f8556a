import {
  AckPolicy,
  type ConsumerInfo,
  type ConsumerMessages,
  DeliverPolicy,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { DEFAULT_STREAM_NAME, type PublishedEvent, publishedEventSchema } from './contract.js';

/**
 * A helper for downstream systems: a durable JetStream pull consumer of Parley's events that
 * validates every payload against the contract (docs/downstream.md).
 */

/** Where a new durable consumer starts (ignored when the durable already exists: it resumes). */
export type DeliverFrom =
  | 'all'
  | 'new'
  /** Events after this log position (`commit/prepare` or the payload's `{ commit, prepare }`). */
  | { position: string | { commit: string | bigint; prepare: string | bigint } }
  /** Messages stored in the stream at or after this instant. */
  | { startTime: Date };

export interface DeliveryInfo {
  subject: string;
  /** The message's sequence in the JetStream stream (not the log position). */
  streamSequence: number;
  /** 1 on the first delivery. */
  deliveryCount: number;
}

export interface InvalidMessage {
  subject: string;
  streamSequence: number;
  error: string;
}

export interface ConsumeParleyEventsOptions {
  nats: NatsConnection;
  /** Default PARLEY_EVENTS. */
  stream?: string;
  durableName: string;
  /** e.g. `parley.<tenantId>.>` or `parley.*.*.session%2Estarted`; default every subject. */
  filterSubjects?: readonly string[];
  /** Default 'all'. */
  deliverFrom?: DeliverFrom;
  /** Acked when it resolves; nak'ed (redelivered after nakDelayMs) when it throws. */
  handle(event: PublishedEvent, delivery: DeliveryInfo): Promise<void> | void;
  /** A message that is not a valid payload: terminated (never redelivered) and reported here. */
  onInvalid?(message: InvalidMessage): void;
  /** `handle` threw: the message is nak'ed with a delay and reported here. */
  onHandlerError?(error: unknown, event: PublishedEvent, delivery: DeliveryInfo): void;
  /** Delay before a failed message is redelivered (ms; a function of the delivery count). Default 1 s doubling to 60 s. */
  nakDelayMs?: number | ((deliveryCount: number) => number);
  /** How long the server waits for an ack before redelivering (consumer creation only). Default 30 s. */
  ackWaitMs?: number;
  /** Messages pulled per request. Default 100. */
  batchSize?: number;
  /** Aborting stops pulling; the message in hand is finished first. */
  signal?: AbortSignal;
}

export interface ParleyEventConsumer {
  /** Messages in the stream matching the consumer not yet delivered to it. */
  pending(): Promise<number>;
  /** The consumer's info as the server has it. */
  info(): Promise<ConsumerInfo>;
  /** Stops pulling after the message in hand; resolves when the loop has ended. */
  stop(): Promise<void>;
  /** Resolves when the loop ends (stop, abort, or the connection closed); rejects if pulling failed. */
  done: Promise<void>;
}

const NOT_FOUND_CODE = 10014;

function parseLogPosition(value: string | { commit: string | bigint; prepare: string | bigint }): {
  commit: bigint;
  prepare: bigint;
} {
  if (typeof value === 'string') {
    const match = /^(\d+)\/(\d+)$/.exec(value.trim());
    if (!match) throw new Error(`deliverFrom.position must be commit/prepare, got ${value}`);
    return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
  }
  return { commit: BigInt(value.commit), prepare: BigInt(value.prepare) };
}

/** One subject: filter_subject (any server); several: filter_subjects (NATS server 2.10+). */
function filterConfig(subjects: string[] | undefined): {
  filter_subject?: string;
  filter_subjects?: string[];
} {
  if (subjects === undefined) return {};
  return subjects.length === 1 ? { filter_subject: subjects[0]! } : { filter_subjects: subjects };
}

function serverAtLeast(version: string | undefined, wanted: [number, number, number]): boolean {
  const parts = (version ?? '0.0.0').split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < 3; i++) {
    if ((parts[i] ?? 0) !== wanted[i]) return (parts[i] ?? 0) > wanted[i]!;
  }
  return true;
}

function defaultNakDelay(deliveryCount: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, deliveryCount - 1));
}

/** Creates the durable pull consumer (or reuses it) and handles messages until stopped. */
export async function consumeParleyEvents(options: ConsumeParleyEventsOptions): Promise<ParleyEventConsumer> {
  const streamName = options.stream ?? DEFAULT_STREAM_NAME;
  const deliverFrom = options.deliverFrom ?? 'all';
  const after =
    typeof deliverFrom === 'object' && 'position' in deliverFrom
      ? parseLogPosition(deliverFrom.position)
      : undefined;
  const jsm = await jetstreamManager(options.nats);
  const filterSubjects =
    options.filterSubjects && options.filterSubjects.length > 0 ? [...options.filterSubjects] : undefined;

  let existing: ConsumerInfo | undefined;
  try {
    existing = await jsm.consumers.info(streamName, options.durableName);
  } catch (err) {
    const code = (err as { api_error?: { err_code?: number } }).api_error?.err_code;
    if (code !== NOT_FOUND_CODE && !/consumer not found/i.test(String(err))) throw err;
  }
  if (existing === undefined) {
    await jsm.consumers.add(streamName, {
      durable_name: options.durableName,
      ack_policy: AckPolicy.Explicit,
      ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
      ...filterConfig(filterSubjects),
      ...(deliverFrom === 'new'
        ? { deliver_policy: DeliverPolicy.New }
        : typeof deliverFrom === 'object' && 'startTime' in deliverFrom
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: deliverFrom.startTime.toISOString() }
          : { deliver_policy: DeliverPolicy.All }),
    });
  } else if (filterSubjects) {
    const current =
      existing.config.filter_subjects ??
      (existing.config.filter_subject ? [existing.config.filter_subject] : []);
    if (current.join('\n') !== filterSubjects.join('\n')) {
      await jsm.consumers.update(streamName, options.durableName, filterConfig(filterSubjects));
    }
  }

  const js = jetstream(options.nats);
  const consumer = await js.consumers.get(streamName, options.durableName);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: options.batchSize ?? 100 });
  const nakDelay = options.nakDelayMs ?? defaultNakDelay;
  const onInvalid =
    options.onInvalid ??
    ((m: InvalidMessage) =>
      console.warn(
        `parley consumer ${options.durableName}: invalid message ${m.streamSequence} on ${m.subject}: ${m.error}`,
      ));

  // `+TERM <reason>` needs server 2.10.4; an older one ignores it (the message would stay pending).
  const termWithReason = serverAtLeast(options.nats.info?.version, [2, 10, 4]);
  const terminate = (msg: JsMsg, reason: string) => (termWithReason ? msg.term(reason) : msg.term());

  const handleOne = async (msg: JsMsg) => {
    const delivery: DeliveryInfo = {
      subject: msg.subject,
      streamSequence: msg.seq,
      deliveryCount: msg.info.deliveryCount,
    };
    let payload: unknown;
    try {
      payload = msg.json();
    } catch (err) {
      terminate(msg, 'not JSON');
      onInvalid({ subject: msg.subject, streamSequence: msg.seq, error: `not JSON: ${String(err)}` });
      return;
    }
    const parsed = publishedEventSchema.safeParse(payload);
    if (!parsed.success) {
      terminate(msg, 'not a Parley event');
      onInvalid({ subject: msg.subject, streamSequence: msg.seq, error: parsed.error.message });
      return;
    }
    const event = parsed.data;
    if (after !== undefined) {
      const commit = BigInt(event.position.commit);
      const prepare = BigInt(event.position.prepare);
      if (commit < after.commit || (commit === after.commit && prepare <= after.prepare)) {
        msg.ack();
        return;
      }
    }
    try {
      await options.handle(event, delivery);
    } catch (err) {
      msg.nak(typeof nakDelay === 'number' ? nakDelay : nakDelay(delivery.deliveryCount));
      options.onHandlerError?.(err, event, delivery);
      return;
    }
    msg.ack();
  };

  let stopping = false;
  const stopPulling = () => {
    if (stopping) return;
    stopping = true;
    void messages.close().catch(() => undefined);
  };
  const done = (async () => {
    for await (const msg of messages) {
      if (stopping) {
        // Pulled but not handled: back to the server at once (no wait for ack_wait).
        msg.nak();
        continue;
      }
      await handleOne(msg);
    }
  })().finally(() => options.signal?.removeEventListener('abort', stopPulling));
  if (options.signal) {
    if (options.signal.aborted) stopPulling();
    else options.signal.addEventListener('abort', stopPulling, { once: true });
  }
  return {
    pending: async () => (await consumer.info()).num_pending,
    info: () => consumer.info(),
    stop: async () => {
      stopPulling();
      await done;
    },
    done,
  };
}
