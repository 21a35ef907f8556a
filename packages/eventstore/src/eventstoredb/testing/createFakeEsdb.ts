import { PassThrough } from 'node:stream';
import {
  type AllStreamRecordedEvent,
  type AppendExpectedRevision,
  type AppendResult,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  type EventData,
  type EventStoreDBClient,
  type Filter,
  type ReadPosition,
  type ReadRevision,
  StreamNotFoundError,
} from '@eventstore/db-client';

/**
 * An in-memory stand-in for the few client calls the adapter makes, for unit tests only (no server can
 * run in CI here; the contract suite runs the real thing when EVENTSTORE_URL is set). It follows the
 * server where the adapter depends on it: revisions and expected-revision checks, an inclusive
 * `fromPosition` on forward $all reads (as the client's own tests show) and an exclusive one for
 * subscriptions, StreamNotFound on reading a missing stream, regex filters on event types. It does not dedupe ids unless told to, which is the server's worst case.
 */
export interface FakeEsdb {
  client: EventStoreDBClient;
  log: AllStreamRecordedEvent[];
  streamEvents(stream: string): AllStreamRecordedEvent[];
  /** Adds a record as the server would for system streams, links, etc. */
  appendSystem(streamId: string, type: string): void;
  appendCalls: number;
  /** Subscriptions still open. */
  openSubscriptions(): number;
  /** Records returned by readAll so far. */
  recordsRead: number;
}

export interface FakeEsdbOptions {
  /** Forward $all reads include the record at fromPosition (the server does). Default true. */
  inclusiveReads?: boolean;
  /** Answer a repeated batch at the same expected revision with success and no position. */
  serverDedupe?: boolean;
  /** Report conflicts as `success: false` instead of throwing (throwOnAppendFailure: false). */
  reportFailures?: boolean;
}

export function createFakeEsdb(options: FakeEsdbOptions = {}): FakeEsdb {
  const inclusive = options.inclusiveReads ?? true;
  const log: AllStreamRecordedEvent[] = [];
  let nextPosition = 100n;
  const subscribers = new Set<(event: AllStreamRecordedEvent) => void>();
  const streamEvents = (stream: string) => log.filter((e) => e.streamId === stream);
  const record = (streamId: string, type: string, id: string, data: unknown, metadata: unknown) => {
    const revision = BigInt(streamEvents(streamId).length);
    nextPosition += 37n;
    const event = {
      streamId,
      id,
      revision,
      type,
      data,
      metadata,
      isJson: true,
      created: new Date(Number(nextPosition)),
      position: { commit: nextPosition, prepare: nextPosition },
    } as AllStreamRecordedEvent;
    log.push(event);
    for (const notify of subscribers) notify(event);
    return event;
  };
  const fake: FakeEsdb = {
    log,
    streamEvents,
    appendCalls: 0,
    recordsRead: 0,
    openSubscriptions: () => subscribers.size,
    appendSystem: (streamId, type) => {
      record(streamId, type, crypto.randomUUID(), {}, undefined);
    },
    client: undefined as unknown as EventStoreDBClient,
  };

  const client = {
    async appendToStream(
      stream: string,
      events: EventData[],
      { expectedRevision = 'any' }: { expectedRevision?: AppendExpectedRevision } = {},
    ): Promise<AppendResult> {
      fake.appendCalls += 1;
      const existing = streamEvents(stream);
      const current = existing.length === 0 ? 'no_stream' : BigInt(existing.length - 1);
      if (options.serverDedupe && typeof expectedRevision === 'bigint') {
        const next = existing.slice(
          Number(expectedRevision) + 1,
          Number(expectedRevision) + 1 + events.length,
        );
        if (next.length === events.length && next.every((e, i) => e.id === events[i]?.id)) {
          return {
            success: true,
            nextExpectedRevision: next[next.length - 1]!.revision,
            position: undefined,
          };
        }
      }
      const ok =
        expectedRevision === 'any' ||
        (expectedRevision === 'no_stream' && current === 'no_stream') ||
        (expectedRevision === 'stream_exists' && current !== 'no_stream') ||
        expectedRevision === current;
      if (!ok) {
        if (options.reportFailures) {
          return {
            success: false,
            nextExpectedRevision: current === 'no_stream' ? -1n : current,
            position: undefined,
          };
        }
        throw new EsdbWrongExpectedVersionError(undefined, {
          streamName: stream,
          expected: expectedRevision,
          current,
        });
      }
      const written = events.map((e) => record(stream, e.type, e.id, e.data, e.metadata));
      const last = written[written.length - 1]!;
      return { success: true, nextExpectedRevision: last.revision, position: last.position };
    },

    readStream(
      stream: string,
      { direction = 'forwards', fromRevision, maxCount = Number.MAX_SAFE_INTEGER } = {} as {
        direction?: 'forwards' | 'backwards';
        fromRevision?: ReadRevision;
        maxCount?: number | bigint;
      },
    ) {
      const events = streamEvents(stream);
      const from =
        fromRevision === undefined || fromRevision === 'start' || fromRevision === 'end'
          ? undefined
          : fromRevision;
      const selected =
        direction === 'forwards'
          ? events.filter((e) => from === undefined || e.revision >= from)
          : events.filter((e) => from === undefined || e.revision <= from).reverse();
      return readable(
        events.length === 0 ? new StreamNotFoundError(undefined, stream) : undefined,
        selected
          .slice(0, Number(maxCount))
          .map((event) => ({ event, commitPosition: event.position.commit })),
      );
    },

    readAll(
      { fromPosition = 'start', direction = 'forwards', maxCount = Number.MAX_SAFE_INTEGER } = {} as {
        fromPosition?: ReadPosition;
        direction?: 'forwards' | 'backwards';
        maxCount?: number | bigint;
      },
    ) {
      const at = (e: AllStreamRecordedEvent) => e.position.commit;
      let selected: AllStreamRecordedEvent[];
      if (direction === 'forwards') {
        selected =
          fromPosition === 'start'
            ? [...log]
            : fromPosition === 'end'
              ? []
              : log.filter((e) => (inclusive ? at(e) >= fromPosition.commit : at(e) > fromPosition.commit));
      } else {
        selected =
          fromPosition === 'end'
            ? [...log].reverse()
            : fromPosition === 'start'
              ? []
              : log.filter((e) => at(e) < fromPosition.commit).reverse();
      }
      const page = selected.slice(0, Number(maxCount));
      fake.recordsRead += page.length;
      return readable(
        undefined,
        page.map((event) => ({ event, commitPosition: event.position.commit })),
      );
    },

    subscribeToAll(
      { fromPosition = 'start', filter }: { fromPosition?: ReadPosition; filter?: Filter } = {},
      readableOptions: { highWaterMark?: number } = {},
    ) {
      const stream = new PassThrough({ ...readableOptions, objectMode: true });
      const regex = filter && 'regex' in filter ? new RegExp(filter.regex) : undefined;
      const push = (event: AllStreamRecordedEvent) => {
        if (!regex || regex.test(event.type)) stream.write({ event, commitPosition: event.position.commit });
      };
      const from =
        fromPosition === 'start'
          ? -1n
          : fromPosition === 'end'
            ? (log.at(-1)?.position.commit ?? -1n)
            : fromPosition.commit;
      for (const event of log) if (event.position.commit > from) push(event);
      subscribers.add(push);
      stream.on('close', () => subscribers.delete(push));
      return Object.assign(stream, {
        unsubscribe: async () => {
          subscribers.delete(push);
          stream.end();
        },
      });
    },
  };
  fake.client = client as unknown as EventStoreDBClient;
  return fake;
}

/** What the adapter uses of the client's StreamingRead: async iteration and cancel(). */
function readable<T>(error: Error | undefined, items: T[]) {
  return {
    async *[Symbol.asyncIterator]() {
      if (error) throw error;
      yield* items;
    },
    cancel: async () => undefined,
  };
}
