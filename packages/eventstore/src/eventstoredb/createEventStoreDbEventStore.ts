import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
} from '@eventstore/db-client';
import { type Logger, silentLogger } from '@parley/platform';
import type {
  EventStore,
  LogHead,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  Upcast,
} from '../types.js';
import { appendEvents } from './appendEvents.js';
import { fromEsdbPosition, isSystemEvent, toRecordedEvent } from './mapping.js';
import { scanAll } from './scanAll.js';
import { createScanMemo, scanWanted } from './scanWanted.js';
import { subscribeAll } from './subscribeAll.js';

export type EventStoreDbOptions = (
  | {
      /** e.g. `esdb://localhost:2113?tls=false`, or `esdb://admin:changeit@host:2113` on a secure cluster. */
      connectionString: string;
      client?: undefined;
    }
  | {
      /** A client owned by the caller: close() leaves it open. */
      client: EventStoreDBClient;
      connectionString?: undefined;
    }
) & {
  logger?: Logger;
  /** Applied to every event read (readStream, readAll, subscribeAll). */
  upcast?: Upcast;
  /** Records per $all read (readAll, countAfter, head) and events buffered by subscriptions. Default 500. */
  batchSize?: number;
  /**
   * How many of a stream's latest events append searches for the batch's ids before writing. Default:
   * all of them, the port's exact semantics, at the cost of reading the stream on every append. A finite
   * depth bounds that cost; older duplicates are then left to EventStoreDB's own best-effort dedupe.
   */
  idCheckDepth?: number;
};

/** The EventStore port on EventStoreDB / KurrentDB (gRPC, server 22.6+ for stream read positions). */
export function createEventStoreDbEventStore(options: EventStoreDbOptions): EventStore {
  const ownsClient = options.client === undefined;
  const client = options.client ?? EventStoreDBClient.connectionString(options.connectionString);
  const logger = options.logger ?? silentLogger();
  const upcast: Upcast = options.upcast ?? ((event) => event);
  const batchSize = Math.max(2, options.batchSize ?? 500);
  const idCheckDepth = options.idCheckDepth ?? Number.POSITIVE_INFINITY;
  const closing = new AbortController();
  // Client v6 cannot filter reads of $all on the server: see scanWanted.ts.
  const memo = createScanMemo();

  const assertOpen = () => {
    if (closing.signal.aborted) throw new Error('EventStoreDB event store is closed');
  };

  return {
    async append(stream, events, appendOptions) {
      assertOpen();
      return appendEvents(
        { client, logger, idCheckDepth },
        stream,
        events,
        appendOptions?.expectedRevision ?? 'any',
      );
    },

    async *readStream(stream: string, readOptions: ReadStreamOptions = {}): AsyncGenerator<RecordedEvent> {
      assertOpen();
      const backwards = readOptions.direction === 'backwards';
      if (readOptions.fromRevision !== undefined && readOptions.fromRevision < 0n) {
        throw new RangeError(`fromRevision must be >= 0, got ${readOptions.fromRevision}`);
      }
      if (readOptions.maxCount !== undefined && readOptions.maxCount <= 0) return;
      const read = client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: readOptions.fromRevision ?? (backwards ? END : START),
        ...(readOptions.maxCount !== undefined ? { maxCount: readOptions.maxCount } : {}),
      });
      try {
        for await (const resolved of read) {
          if (!resolved.event || resolved.event.type.startsWith('$')) continue;
          yield upcast(toRecordedEvent(resolved.event, resolved.commitPosition));
        }
      } catch (err) {
        if (err instanceof StreamNotFoundError) return;
        throw err;
      } finally {
        // A consumer that stops early would otherwise leave the gRPC call open.
        await read.cancel().catch(() => undefined);
      }
    },

    async readAll({ after, maxCount, eventTypes }: ReadAllOptions): Promise<RecordedEvent[]> {
      assertOpen();
      if (!Number.isSafeInteger(maxCount) || maxCount < 1) {
        throw new RangeError(`readAll maxCount must be a positive integer, got ${maxCount}`);
      }
      const types = eventTypes ? new Set(eventTypes) : undefined;
      const batch: RecordedEvent[] = [];
      if (types?.size === 0) return batch;
      // Without a type filter every page is mostly wanted events, so ask for about what is missing.
      const pageSize = types ? batchSize : Math.min(batchSize, maxCount + 1);
      for await (const event of scanWanted(client, memo, { after, types, pageSize })) {
        batch.push(upcast(toRecordedEvent(event)));
        if (batch.length >= maxCount) break;
      }
      return batch;
    },

    subscribeAll(subscribeOptions) {
      assertOpen();
      return subscribeAll({ client, upcast, batchSize, closing: closing.signal }, subscribeOptions);
    },

    async head(): Promise<LogHead | null> {
      assertOpen();
      // Small pages: the end of the log usually holds at most a few system records (links, stats).
      for await (const event of scanAll(client, {
        direction: 'backwards',
        pageSize: Math.min(batchSize, 20),
      })) {
        if (isSystemEvent(event)) continue;
        return { position: fromEsdbPosition(event.position), recordedAt: event.created };
      }
      return null;
    },

    async countAfter(after: Position | undefined, eventTypes: readonly string[] | undefined, cap: number) {
      assertOpen();
      const types = eventTypes ? new Set(eventTypes) : undefined;
      const limit = Math.floor(cap);
      let count = 0;
      if (limit <= 0 || types?.size === 0) return count;
      for await (const _ of scanWanted(client, memo, { after, types, pageSize: batchSize })) {
        count += 1;
        if (count >= limit) break;
      }
      return count;
    },

    async close() {
      if (closing.signal.aborted) return;
      // Ends open subscriptions cleanly before their channel goes away.
      closing.abort();
      if (ownsClient) await client.dispose();
    },
  };
}
