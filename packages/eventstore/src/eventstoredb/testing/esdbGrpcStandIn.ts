import { randomUUID } from 'node:crypto';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import * as grpc from '@grpc/grpc-js';

type ReadReq = InstanceType<typeof streamsPb.ReadReq>;
type ReadOptions = NonNullable<ReturnType<ReadReq['getOptions']>>;
type AppendReq = InstanceType<typeof streamsPb.AppendReq>;
type AppendOptions = NonNullable<ReturnType<AppendReq['getOptions']>>;
type Uuid = InstanceType<typeof sharedPb.UUID>;

/** One record of the stand-in's log, as the server keeps it. */
interface StoredRecord {
  stream: string;
  id: string;
  type: string;
  contentType: string;
  revision: bigint;
  commit: bigint;
  prepare: bigint;
  /** .NET ticks (100 ns since 0001-01-01), as the server sends `created`. */
  created: bigint;
  data: Uint8Array;
  customMetadata: Uint8Array;
  /** The ReadResp of this record, serialized once (reads send the same bytes every time). */
  encoded?: Buffer;
}

export interface EsdbGrpcStandIn {
  /** `esdb://127.0.0.1:<port>?tls=false`, for EventStoreDBClient.connectionString. */
  connectionString: string;
  /** Subscriptions (Read calls with the subscription option) still open. */
  openSubscriptions(): number;
  close(): Promise<void>;
}

const TICKS_AT_UNIX_EPOCH = 621_355_968_000_000_000n;
const bytes = (value: Uint8Array | string): Uint8Array =>
  typeof value === 'string' ? new TextEncoder().encode(value) : value;
const text = (value: Uint8Array | string | undefined): string =>
  value === undefined ? '' : typeof value === 'string' ? value : new TextDecoder().decode(value);
const uuidText = (uuid: Uuid | undefined): string => {
  if (uuid === undefined) return randomUUID();
  if (uuid.hasString()) return uuid.getString();
  const s = uuid.getStructured();
  const hex = (n: string) => BigInt.asUintN(64, BigInt(n)).toString(16).padStart(16, '0');
  const h = hex(s?.getMostSignificantBits() ?? '0') + hex(s?.getLeastSignificantBits() ?? '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/**
 * An in-memory EventStoreDB that speaks the server's gRPC protocol (the Streams service's Append and
 * Read, as @eventstore/db-client v6 calls them), so the adapter runs over the real client, wire and
 * all. It follows the server where the adapter depends on it: revisions and expected-revision checks
 * (WrongExpectedVersion answers, not errors), StreamNotFound on reading a missing stream, inclusive
 * `position` on forward `$all` reads and exclusive for subscriptions, catch-up then live subscriptions
 * with event-type and stream filters (regex or prefixes). It answers no ServerFeatures call (the client
 * then appends with Append, as against an older server) and never dedupes ids (the server's worst case,
 * once its id cache forgot them). Tests only.
 */
export async function startEsdbGrpcStandIn(): Promise<EsdbGrpcStandIn> {
  const log: StoredRecord[] = [];
  const streams = new Map<string, StoredRecord[]>();
  const live = new Set<(record: StoredRecord) => void>();
  let nextPosition = 1000n;

  function append(call: grpc.ServerReadableStream<AppendReq, unknown>, done: grpc.sendUnaryData<unknown>) {
    let options: AppendOptions | undefined;
    const proposed: StoredRecord[] = [];
    call.on('data', (req: AppendReq) => {
      if (req.hasOptions()) options = req.getOptions();
      const message = req.getProposedMessage();
      if (message === undefined) return;
      const metadata = message.getMetadataMap();
      proposed.push({
        stream: '',
        id: uuidText(message.getId()),
        type: metadata.get('type') ?? '',
        contentType: metadata.get('content-type') ?? 'application/octet-stream',
        revision: 0n,
        commit: 0n,
        prepare: 0n,
        created: 0n,
        data: bytes(message.getData()),
        customMetadata: bytes(message.getCustomMetadata()),
      });
    });
    call.on('end', () => {
      if (options === undefined) return done({ code: grpc.status.INVALID_ARGUMENT, details: 'no options' });
      done(null, commit(options, proposed));
    });
  }

  function commit(options: AppendOptions, proposed: StoredRecord[]) {
    const stream = text(options.getStreamIdentifier()?.getStreamName());
    const existing = streams.get(stream) ?? [];
    const current = existing.length === 0 ? null : BigInt(existing.length - 1);
    const resp = new streamsPb.AppendResp();
    const expectedOk = options.hasNoStream()
      ? current === null
      : options.hasStreamExists()
        ? current !== null
        : options.hasRevision()
          ? current !== null && BigInt(options.getRevision()) === current
          : true;
    if (!expectedOk) {
      const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
      if (current === null) wrong.setCurrentNoStream(new sharedPb.Empty());
      else wrong.setCurrentRevision(current.toString());
      if (options.hasNoStream()) wrong.setExpectedNoStream(new sharedPb.Empty());
      else if (options.hasStreamExists()) wrong.setExpectedStreamExists(new sharedPb.Empty());
      else wrong.setExpectedRevision(options.getRevision());
      return resp.setWrongExpectedVersion(wrong);
    }
    const created = BigInt(Date.now()) * 10_000n + TICKS_AT_UNIX_EPOCH;
    for (const record of proposed) {
      nextPosition += 37n;
      Object.assign(record, {
        stream,
        revision: BigInt(existing.length),
        commit: nextPosition,
        prepare: nextPosition,
        created,
      });
      eventResp(record);
      existing.push(record);
      log.push(record);
    }
    streams.set(stream, existing);
    for (const record of proposed) for (const listener of live) listener(record);
    const success = new streamsPb.AppendResp.Success();
    const last = existing.at(-1);
    if (last === undefined) {
      success.setNoStream(new sharedPb.Empty()).setNoPosition(new sharedPb.Empty());
    } else {
      const position = new streamsPb.AppendResp.Position()
        .setCommitPosition(last.commit.toString())
        .setPreparePosition(last.prepare.toString());
      success.setCurrentRevision(last.revision.toString()).setPosition(position);
    }
    return resp.setSuccess(success);
  }

  function eventResp(record: StoredRecord): Buffer {
    record.encoded ??= Buffer.from(buildEventResp(record).serializeBinary());
    return record.encoded;
  }

  function buildEventResp(record: StoredRecord) {
    const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
      .setId(new sharedPb.UUID().setString(record.id))
      .setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(bytes(record.stream)))
      .setStreamRevision(record.revision.toString())
      .setCommitPosition(record.commit.toString())
      .setPreparePosition(record.prepare.toString())
      .setData(record.data)
      .setCustomMetadata(record.customMetadata);
    recorded
      .getMetadataMap()
      .set('type', record.type)
      .set('content-type', record.contentType)
      .set('created', record.created.toString());
    const event = new streamsPb.ReadResp.ReadEvent()
      .setEvent(recorded)
      .setCommitPosition(record.commit.toString());
    return new streamsPb.ReadResp().setEvent(event);
  }

  /** The read's filter (event type or stream, regex or prefixes); everything without one. */
  function filterOf(options: ReadOptions): (record: StoredRecord) => boolean {
    const filter = options.hasFilter() ? options.getFilter() : undefined;
    if (filter === undefined) return () => true;
    const byType = filter.hasEventType();
    const expression = byType ? filter.getEventType() : filter.getStreamIdentifier();
    const regex = expression?.getRegex() ? new RegExp(expression.getRegex()) : null;
    const prefixes = expression?.getPrefixList() ?? [];
    return (record) => {
      const value = byType ? record.type : record.stream;
      if (regex !== null) return regex.test(value);
      return prefixes.length === 0 || prefixes.some((p) => value.startsWith(p));
    };
  }

  /** The index of the first record at or after `position` (log.length when none). */
  function firstAtOrAfter(position: bigint): number {
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (log[mid]!.commit < position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function read(call: grpc.ServerWritableStream<ReadReq, unknown>) {
    const options = call.request.getOptions();
    if (options === undefined) {
      call.destroy(Object.assign(new Error('no options'), { code: grpc.status.INVALID_ARGUMENT }));
      return;
    }
    const backwards = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
    const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
    const wanted = filterOf(options);
    if (options.hasStream()) return readStream(call, options, backwards, count);
    const all = options.getAll();
    const at = all?.getPosition();
    const position = at === undefined ? null : BigInt(at.getCommitPosition());
    if (options.hasSubscription()) return subscribe(call, all?.hasEnd() ? null : position, all, wanted);
    // The log is in position order: start at the asked position, stop after `count` matching records.
    const step = backwards ? -1 : 1;
    let i = backwards ? log.length - 1 : 0;
    if (position !== null) {
      const first = firstAtOrAfter(position);
      i = backwards ? first - 1 : first;
    }
    if (backwards ? all?.hasStart() : all?.hasEnd()) i = -1;
    for (let sent = 0; i >= 0 && i < log.length && sent < count; i += step) {
      const record = log[i]!;
      if (!wanted(record)) continue;
      call.write(eventResp(record));
      sent += 1;
    }
    call.end();
  }

  function readStream(
    call: grpc.ServerWritableStream<ReadReq, unknown>,
    options: ReadOptions,
    backwards: boolean,
    count: number,
  ) {
    const streamOptions = options.getStream();
    const name = text(streamOptions?.getStreamIdentifier()?.getStreamName());
    const records = streams.get(name);
    if (records === undefined) {
      const notFound = new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(
        new sharedPb.StreamIdentifier().setStreamName(bytes(name)),
      );
      call.write(new streamsPb.ReadResp().setStreamNotFound(notFound));
      call.end();
      return;
    }
    const from = streamOptions?.hasRevision() ? BigInt(streamOptions.getRevision()) : null;
    let selected = backwards ? [...records].reverse() : records;
    if (from !== null)
      selected = selected.filter((r) => (backwards ? r.revision <= from : r.revision >= from));
    if (backwards ? streamOptions?.hasStart() : streamOptions?.hasEnd()) selected = [];
    for (const record of selected.slice(0, count)) call.write(eventResp(record));
    call.end();
  }

  function subscribe(
    call: grpc.ServerWritableStream<ReadReq, unknown>,
    after: bigint | null,
    all: ReturnType<ReadOptions['getAll']>,
    wanted: (record: StoredRecord) => boolean,
  ) {
    call.write(
      new streamsPb.ReadResp().setConfirmation(
        new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID()),
      ),
    );
    const from = all?.hasEnd() ? log.length : after === null ? 0 : firstAtOrAfter(after + 1n);
    for (const record of log.slice(from)) if (wanted(record)) call.write(eventResp(record));
    const listener = (record: StoredRecord) => {
      if (wanted(record)) call.write(eventResp(record));
    };
    live.add(listener);
    const stop = () => {
      live.delete(listener);
    };
    call.on('cancelled', stop);
    call.on('close', stop);
    call.on('error', stop);
  }

  const server = new grpc.Server();
  // Read answers events as bytes serialized once per record (the other answers as messages).
  const readDefinition = streamsGrpc.StreamsService.read;
  const service = {
    ...streamsGrpc.StreamsService,
    read: {
      ...readDefinition,
      responseSerialize: (value: Buffer | InstanceType<typeof streamsPb.ReadResp>) =>
        Buffer.isBuffer(value) ? value : readDefinition.responseSerialize(value),
    },
  };
  server.addService(service, {
    append,
    read,
    batchAppend: (call: grpc.ServerDuplexStream<unknown, unknown>) =>
      call.destroy(Object.assign(new Error('not implemented'), { code: grpc.status.UNIMPLEMENTED })),
    delete: (_call: unknown, done: grpc.sendUnaryData<unknown>) =>
      done({ code: grpc.status.UNIMPLEMENTED, details: 'not implemented' }),
    tombstone: (_call: unknown, done: grpc.sendUnaryData<unknown>) =>
      done({ code: grpc.status.UNIMPLEMENTED, details: 'not implemented' }),
  } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    openSubscriptions: () => live.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        // Open subscriptions would hold the graceful shutdown: end them as a stopping server does.
        setTimeout(() => server.forceShutdown(), 1_000).unref();
      }),
  };
}
