import fc from 'fast-check';
import { expect } from 'vitest';
import {
  comparePositions,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../types.js';
import { collect, makeEvents, sleep, uniqueName, uniqueType } from './helpers.js';

export interface AppendStep {
  stream: string;
  events: EventToAppend[];
  expectedRevision: ExpectedRevision;
  /** A free number per step (0-9) an adapter's own append can use to vary how it appends. */
  variant: number;
}

export interface LogPropertyOptions {
  store: EventStore;
  /** How the appenders append. Default: store.append. */
  append?: (step: AppendStep) => Promise<unknown>;
  numRuns?: number;
}

const stepArb = fc.record({
  stream: fc.nat({ max: 3 }),
  size: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 20, max: 80 })),
  delayMs: fc.integer({ min: 0, max: 5 }),
  optimistic: fc.boolean(),
  variant: fc.nat({ max: 9 }),
});

const scenarioArb = fc.record({
  streamCount: fc.integer({ min: 1, max: 4 }),
  appenders: fc.array(fc.array(stepArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
  reader: fc.record({
    batchSize: fc.integer({ min: 1, max: 16 }),
    /** The reader stops after this many events, then restarts from its last checkpoint (cycled). */
    restartAfter: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 5 }),
    viaSubscription: fc.boolean(),
  }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

interface Reader {
  seen: RecordedEvent[];
  checkpoint: Position | undefined;
}

/** One reader "process" lifetime: reads until `limit` events or until told to stop. */
async function readSession(
  store: EventStore,
  reader: Reader,
  type: string,
  scenario: Scenario['reader'],
  limit: number,
  stop: () => boolean,
): Promise<void> {
  let count = 0;
  const take = (event: RecordedEvent) => {
    reader.seen.push(event);
    reader.checkpoint = event.position;
    count += 1;
  };
  if (scenario.viaSubscription) {
    const controller = new AbortController();
    const monitor = setInterval(() => stop() && controller.abort(), 5);
    try {
      const events = store.subscribeAll({
        ...(reader.checkpoint ? { after: reader.checkpoint } : {}),
        eventTypes: [type],
        batchSize: scenario.batchSize,
        signal: controller.signal,
      });
      for await (const event of events) {
        take(event);
        if (count >= limit) break;
      }
    } finally {
      clearInterval(monitor);
    }
    return;
  }
  while (count < limit && !stop()) {
    const batch = await store.readAll({
      ...(reader.checkpoint ? { after: reader.checkpoint } : {}),
      maxCount: scenario.batchSize,
      eventTypes: [type],
    });
    if (batch.length === 0) await sleep(1);
    // Stopping mid-batch drops the rest unprocessed, like a crash before the checkpoint commit.
    for (const event of batch) {
      if (count >= limit) break;
      take(event);
    }
  }
}

/** Optimistic steps append at the stream's last revision they read, and retry when someone was faster. */
async function appendStep(
  store: EventStore,
  append: LogPropertyOptions['append'],
  step: Omit<AppendStep, 'expectedRevision'>,
  optimistic: boolean,
) {
  const run =
    append ?? ((s: AppendStep) => store.append(s.stream, s.events, { expectedRevision: s.expectedRevision }));
  if (!optimistic) return run({ ...step, expectedRevision: 'any' });
  for (;;) {
    const [last] = await collect(store.readStream(step.stream, { direction: 'backwards', maxCount: 1 }));
    try {
      return await run({ ...step, expectedRevision: last ? last.revision : 'no_stream' });
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError)) throw err;
    }
  }
}

async function runScenario(options: LogPropertyOptions, scenario: Scenario): Promise<void> {
  const { store } = options;
  const type = uniqueType('Interleaved');
  const streams = Array.from({ length: scenario.streamCount }, () => uniqueName('interleaved'));
  const acknowledged = new Set<string>();
  let appendersDone = false;

  const appending = Promise.all(
    scenario.appenders.map(async (steps, appender) => {
      for (const step of steps) {
        await sleep(step.delayMs);
        const events = makeEvents(step.size, type, { appender });
        const stream = streams[step.stream % streams.length]!;
        await appendStep(store, options.append, { stream, events, variant: step.variant }, step.optimistic);
        for (const e of events) acknowledged.add(e.eventId);
      }
    }),
  ).finally(() => {
    appendersDone = true;
  });

  const reader: Reader = { seen: [], checkpoint: undefined };
  const deadline = Date.now() + 10_000;
  const stop = () => (appendersDone && reader.seen.length >= acknowledged.size) || Date.now() > deadline;
  const reading = (async () => {
    for (let session = 0; !stop(); session++) {
      const limit = scenario.reader.restartAfter[session % scenario.reader.restartAfter.length]!;
      await readSession(store, reader, type, scenario.reader, limit, stop);
    }
  })();
  await Promise.all([appending, reading]);

  const ids = reader.seen.map((e) => e.eventId);
  expect(new Set(ids).size, 'an event was delivered twice').toBe(ids.length);
  expect([...ids].sort(), 'an acknowledged event was lost').toEqual([...acknowledged].sort());
  for (let i = 1; i < reader.seen.length; i++) {
    expect(comparePositions(reader.seen[i - 1]!.position, reader.seen[i]!.position)).toBe(-1);
  }
  for (const stream of streams) {
    const inStream = (await collect(store.readStream(stream))).map((e) => e.eventId);
    const inLog = reader.seen.filter((e) => e.stream === stream).map((e) => e.eventId);
    expect(inLog, `the log reorders ${stream}`).toEqual(inStream);
  }
  const after = reader.checkpoint ? { after: reader.checkpoint } : {};
  expect(await store.readAll({ ...after, maxCount: 10, eventTypes: [type] })).toEqual([]);
}

/**
 * The log's central promise under concurrency: many appenders on a few
 * streams, one reader that checkpoints and restarts from its checkpoint again
 * and again; every acknowledged event is read exactly once, in increasing
 * positions, each stream in revision order.
 */
export async function checkConcurrentAppendsReadOnce(options: LogPropertyOptions): Promise<void> {
  await fc.assert(
    fc.asyncProperty(scenarioArb, (scenario) => runScenario(options, scenario)),
    { numRuns: options.numRuns ?? 20, endOnFailure: true },
  );
}
