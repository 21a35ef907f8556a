import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { DEFAULT_STREAM_NAME, openReplayPublisher, type ReplayPublisher } from '@parley/downstream';
import {
  comparePositions,
  type EventStore,
  formatPosition,
  type LogHead,
  parsePosition,
  type RecordedEvent,
  START,
} from '@parley/eventstore';
import { createProgress } from '../progress.js';
import { matchesReplayFilter, type ReplayFilter, toJsonLine } from '../replay/filter.js';
import { openSystem, UsageError } from '../system.js';
import type { CliContext } from './context.js';

export interface ReplayOptions extends ReplayFilter {
  after?: string;
  out?: string;
  upcast: boolean;
  batchSize: number;
  /** Publish to the JetStream stream instead of writing JSON lines (NATS_URL required). */
  toNats?: boolean;
  /** Appended to each Nats-Msg-Id (`<eventId>:<suffix>`) so JetStream keeps repeats within its window. */
  msgIdSuffix?: string;
  /** Default NATS_STREAM_NAME (PARLEY_EVENTS). */
  natsStream?: string;
  /** Default `parley`. */
  subjectPrefix?: string;
}

const COUNT_CAP = 100_000_000;

/**
 * Writes the log, or the part a filter selects, as JSON lines (for audit or
 * to feed another system). Events as stored unless --upcast.
 */
export async function replayCommand(ctx: CliContext, options: ReplayOptions): Promise<void> {
  if (options.toNats && ctx.config.NATS_URL === undefined) {
    throw new UsageError('--to-nats needs NATS_URL (e.g. nats://127.0.0.1:4222).');
  }
  if (options.subjectPrefix !== undefined && !/^[A-Za-z0-9_-]+$/.test(options.subjectPrefix)) {
    throw new UsageError('--subject-prefix must be one subject token (letters, digits, _ and -).');
  }
  if (options.toNats && options.out) throw new UsageError('--to-nats and --out cannot be combined.');
  const natsStream = options.natsStream ?? ctx.config.NATS_STREAM_NAME ?? DEFAULT_STREAM_NAME;
  const system = await openSystem(ctx.config, ctx.logger, {
    database: 'attach',
    migrate: false,
    upcast: options.upcast,
    poolMax: 2,
  });
  let publisher: ReplayPublisher | undefined;
  let publisherClosed = false;
  if (options.toNats && ctx.config.NATS_URL) {
    try {
      publisher = await openReplayPublisher({
        nats: ctx.config.NATS_URL,
        stream: natsStream,
        msgIdSuffix: options.msgIdSuffix,
        subjectPrefix: options.subjectPrefix,
      });
    } catch (err) {
      await system.close();
      throw err;
    }
  }
  const out: NodeJS.WritableStream = options.out ? createWriteStream(options.out) : ctx.out;
  let broken = false;
  out.on('error', (err: NodeJS.ErrnoException) => {
    // A closed pipe (`parley replay | head`) ends the replay quietly.
    if (err.code === 'EPIPE') broken = true;
    else throw err;
  });
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  const types = options.types && options.types.length > 0 ? options.types : undefined;
  const after = options.after ? parsePosition(options.after) : START;
  let written = 0;
  let scanned = 0;
  // Ctrl-C ends the replay after the event in hand; the output is flushed and closed, and the last
  // line's position can be passed to --after to continue.
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  try {
    const total = options.stream ? 0 : await system.store.countAfter(after, types, COUNT_CAP);
    const progress = createProgress('replay', total);
    const emit = async (event: RecordedEvent) => {
      scanned += 1;
      if (matchesReplayFilter(options, event)) {
        if (publisher) await publisher.publish(event);
        else await write(toJsonLine(event));
        written += 1;
      }
      if (scanned % 1_000 === 0) progress.update(scanned);
    };
    if (options.stream) {
      for await (const event of system.store.readStream(options.stream)) {
        if (broken || interrupted) break;
        await emit(event);
      }
    } else {
      let position = after;
      // Everything committed before the replay began is written, also what readers cannot see yet
      // while an older transaction of the cluster is open (docs/log.md): the replay waits for it.
      const settling = settlingOf(system.store, await system.store.head({ committed: true }), ctx);
      for (;;) {
        const batch = await system.store.readAll({
          after: position,
          maxCount: options.batchSize,
          eventTypes: types,
        });
        if (broken || interrupted) break;
        if (batch.length === 0) {
          if (await settling.waited()) continue;
          break;
        }
        for (const event of batch) {
          if (interrupted) break;
          await emit(event);
        }
        position = batch[batch.length - 1]!.position;
      }
    }
    progress.update(scanned, options.stream ? scanned : undefined);
    progress.stop();
    if (publisher) {
      const { published, duplicates } = await publisher.close();
      publisherClosed = true;
      ctx.err.write(
        `published ${published} events to NATS stream ${natsStream}` +
          (duplicates > 0
            ? ` (${duplicates} dropped by JetStream as duplicates within its window; see --msg-id-suffix)`
            : '') +
          '\n',
      );
    }
  } finally {
    process.off('SIGINT', onSigint);
    if (publisher && !publisherClosed) await publisher.close().catch(() => undefined);
    if (options.out) {
      out.end();
      await once(out, 'close');
    }
    await system.close();
  }
  if (options.out) ctx.err.write(`wrote ${written} events to ${options.out}\n`);
}

/** How long a replay waits for committed events to become readable before it stops without them. */
const SETTLE_WAIT_MS = 60_000;

/**
 * `waited()`: true after a short wait when events committed before the replay began are not readable
 * yet (read again); false when they all are, or after SETTLE_WAIT_MS (then a warning says so).
 */
function settlingOf(
  store: EventStore,
  target: LogHead | null,
  ctx: CliContext,
): { waited(): Promise<boolean> } {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  return {
    async waited() {
      if (target === null) return false;
      const visible = await store.head();
      if (visible !== null && comparePositions(visible.position, target.position) >= 0) return false;
      if (Date.now() > deadline) {
        ctx.err.write(
          `warning: events up to ${formatPosition(target.position)} were committed but are ` +
            'not readable yet (a long transaction is open on the database cluster); the replay stops before them\n',
        );
        return false;
      }
      await new Promise((r) => setTimeout(r, 50));
      return true;
    },
  };
}
