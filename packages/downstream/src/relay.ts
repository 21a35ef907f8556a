import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import {
  comparePositions,
  type EventStore,
  formatPosition,
  type Position,
  type RecordedEvent,
} from '@parley/eventstore';
import { abortableSleep, type Logger, type Pool } from '@parley/platform';
import { readCheckpoint, writeCheckpoint } from './checkpoints.js';
import { subjectOf, toPublishedEvent } from './contract.js';
import { ensureStream, type StreamSettings } from './stream.js';

export interface NatsRelayOptions {
  store: EventStore;
  pool: Pool;
  /** Connection options (servers: NATS_URL), or a function that opens the connection. */
  nats: NodeConnectionOptions | (() => Promise<NatsConnection>);
  stream?: StreamSettings;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Publishes in flight (awaiting their PubAck) at most. Default 256. */
  batchSize?: number;
  /** The checkpoint's name (one per relay). Default `nats`. */
  name?: string;
  /** How long one publish waits for its PubAck, milliseconds. Default 5 000. */
  publishTimeoutMs?: number;
  /** Backoff after a failure: from min to max, doubling. Default 250 ms … 10 s. */
  backoffMinMs?: number;
  backoffMaxMs?: number;
}

export interface NatsRelayStatus {
  running: boolean;
  /** True while a NATS failure keeps it waiting to retry. */
  paused: boolean;
  /** The last event JetStream acknowledged in log order (`commit/prepare`), or null. */
  lastPublished: string | null;
  /** Events in the log after lastPublished (counted up to 1 000 000). */
  lag: number;
  published: number;
  failures: number;
  lastError: string | null;
}

export interface NatsRelay {
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): Promise<NatsRelayStatus>;
}

interface InFlight {
  event: RecordedEvent;
  ack: Promise<unknown>;
}

/**
 * The relay (docs/downstream.md): reads the log after its checkpoint and publishes every event to
 * the JetStream stream, with the event id as Nats-Msg-Id. The checkpoint moves only past events whose
 * PubAck arrived, in log order; any failure (a publish timing out, the connection lost) drops what is in
 * flight, waits (backoff) and starts again from the last acknowledged event. A repeat (acknowledged,
 * then failed before the checkpoint) is dropped by JetStream within its duplicate window.
 */
export function createNatsRelay(options: NatsRelayOptions): NatsRelay {
  const { store, pool, logger } = options;
  const name = options.name ?? 'nats';
  const batchSize = options.batchSize ?? 256;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  const backoffMin = options.backoffMinMs ?? 250;
  const backoffMax = options.backoffMaxMs ?? 10_000;
  const open =
    typeof options.nats === 'function'
      ? options.nats
      : () =>
          connect({
            maxReconnectAttempts: -1,
            reconnectTimeWait: 500,
            ...(options.nats as NodeConnectionOptions),
          });

  const stopping = new AbortController();
  let loop: Promise<void> | undefined;
  let nc: NatsConnection | undefined;
  let lastPublished: Position | undefined;
  let paused = false;
  let published = 0;
  let failures = 0;
  let lastError: string | null = null;

  async function connection(): Promise<{ js: JetStreamClient; jsm: JetStreamManager; streamName: string }> {
    if (nc === undefined || nc.isClosed()) nc = await open();
    const jsm = await jetstreamManager(nc, { timeout: publishTimeoutMs });
    const streamName = await ensureStream(jsm, options.stream);
    return { js: jetstream(nc, { timeout: publishTimeoutMs }), jsm, streamName };
  }

  /** One pass: from the checkpoint until a failure (thrown) or stop. */
  async function relayOnce(): Promise<void> {
    const { js, streamName } = await connection();
    const after = await readCheckpoint(pool, name);
    if (after !== undefined && (lastPublished === undefined || comparePositions(after, lastPublished) > 0))
      lastPublished = after;
    paused = false;
    const pass = new AbortController();
    const onStop = () => pass.abort();
    stopping.signal.addEventListener('abort', onStop, { once: true });
    const queue: InFlight[] = [];
    let wake: (() => void) | undefined;
    /** Called by the acker when the queue shrinks (the producer waits on it when the queue is full). */
    let space: (() => void) | undefined;
    let failure: unknown;
    let producing = true;

    // Acknowledgements in log order: the checkpoint moves past each acknowledged prefix.
    const acker = (async () => {
      while (true) {
        const head = queue[0];
        if (head === undefined) {
          if (!producing) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        try {
          await head.ack;
        } catch (err) {
          failure ??= err;
          pass.abort();
          return;
        }
        // Everything acknowledged and contiguous now: store the last of it.
        let last = head;
        queue.shift();
        let count = 1;
        while (queue.length > 0 && (await settled((queue[0] as InFlight).ack)) === 'ok') {
          last = queue.shift() as InFlight;
          count += 1;
        }
        space?.();
        try {
          await writeCheckpoint(pool, name, last.event.position);
        } catch (err) {
          failure ??= err;
          pass.abort();
          return;
        }
        published += count;
        lastPublished = last.event.position;
      }
    })();
    const aborted = never(pass.signal);

    try {
      for await (const event of store.subscribeAll({
        after: lastPublished,
        batchSize,
        signal: pass.signal,
      })) {
        if (pass.signal.aborted) break;
        while (queue.length >= batchSize && !pass.signal.aborted)
          await Promise.race([
            new Promise<void>((resolve) => {
              space = resolve;
            }),
            aborted,
          ]);
        if (pass.signal.aborted) break;
        const ack = js.publish(subjectOf(event), JSON.stringify(toPublishedEvent(event)), {
          msgID: event.eventId,
          expect: { streamName },
          timeout: publishTimeoutMs,
        });
        ack.catch(() => {}); // observed by the acker
        queue.push({ event, ack });
        wake?.();
      }
    } finally {
      producing = false;
      wake?.();
      await acker.catch((err) => {
        failure ??= err;
      });
      stopping.signal.removeEventListener('abort', onStop);
    }
    if (failure !== undefined) throw failure;
  }

  async function run(): Promise<void> {
    let backoff = backoffMin;
    while (!stopping.signal.aborted) {
      try {
        await relayOnce();
        backoff = backoffMin;
      } catch (err) {
        if (stopping.signal.aborted) break;
        failures += 1;
        paused = true;
        lastError = err instanceof Error ? err.message : String(err);
        logger.warn(
          {
            err: lastError,
            retryInMs: backoff,
            lastPublished: lastPublished && formatPosition(lastPublished),
          },
          'NATS relay paused',
        );
        await abortableSleep(backoff, stopping.signal);
        backoff = Math.min(backoff * 2, backoffMax);
      }
    }
  }

  return {
    async start() {
      if (loop !== undefined) return;
      lastPublished = await readCheckpoint(pool, name);
      logger.info({ after: lastPublished ? formatPosition(lastPublished) : null }, 'NATS relay starting');
      loop = run();
    },
    async stop() {
      stopping.abort();
      await loop;
      const conn = nc;
      nc = undefined;
      if (conn !== undefined) await conn.close().catch(() => {});
    },
    async status() {
      const lag = await store.countAfter(lastPublished, undefined, 1_000_000);
      return {
        running: loop !== undefined && !stopping.signal.aborted,
        paused,
        lastPublished: lastPublished === undefined ? null : formatPosition(lastPublished),
        lag,
        published,
        failures,
        lastError,
      };
    },
  };
}

/** Resolves 'ok' when the promise has already resolved, else 'pending' (or 'failed'), without waiting. */
async function settled(p: Promise<unknown>): Promise<'ok' | 'failed' | 'pending'> {
  const pending = Symbol();
  try {
    const r = await Promise.race([p, Promise.resolve(pending)]);
    return r === pending ? 'pending' : 'ok';
  } catch {
    return 'failed';
  }
}

function never(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
