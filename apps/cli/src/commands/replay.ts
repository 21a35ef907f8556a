import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { parsePosition, type RecordedEvent, START } from '@parley/eventstore';
import { createProgress } from '../progress.js';
import { matchesReplayFilter, type ReplayFilter, toJsonLine } from '../replay/filter.js';
import { openSystem } from '../system.js';
import type { CliContext } from './context.js';

export interface ReplayOptions extends ReplayFilter {
  after?: string;
  out?: string;
  upcast: boolean;
  batchSize: number;
}

const COUNT_CAP = 100_000_000;

/**
 * Writes the log, or the part a filter selects, as JSON lines (for audit or
 * to feed another system). Events as stored unless --upcast.
 */
export async function replayCommand(ctx: CliContext, options: ReplayOptions): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, {
    database: 'attach',
    migrate: false,
    upcast: options.upcast,
    poolMax: 2,
  });
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
        await write(toJsonLine(event));
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
      for (;;) {
        const batch = await system.store.readAll({
          after: position,
          maxCount: options.batchSize,
          eventTypes: types,
        });
        if (batch.length === 0 || broken || interrupted) break;
        for (const event of batch) {
          if (interrupted) break;
          await emit(event);
        }
        position = batch[batch.length - 1]!.position;
      }
    }
    progress.update(scanned, options.stream ? scanned : undefined);
    progress.stop();
  } finally {
    process.off('SIGINT', onSigint);
    if (options.out) {
      out.end();
      await once(out, 'close');
    }
    await system.close();
  }
  if (options.out) ctx.err.write(`wrote ${written} events to ${options.out}\n`);
}
