import { randomUUID } from 'node:crypto';
import type { EventStore, EventToAppend, Position, RecordedEvent, SubscribeAllOptions } from '../types.js';

/** A name no other test (or earlier run against the same log) has used. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 12)}`;
}

/** An event type of its own per test, so reads of the shared log see only that test's events. */
export function uniqueType(prefix: string): string {
  return `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

export function makeEvents(n: number, type: string, data: Record<string, unknown> = {}): EventToAppend[] {
  return Array.from({ length: n }, (_, i) => ({
    eventId: randomUUID(),
    type,
    data: { ...data, i },
    metadata: { tenantId: 'contract', correlationId: randomUUID() },
  }));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export interface ReadAllOfOptions {
  after?: Position;
  eventTypes?: readonly string[];
  /** Keep reading until this many events arrived (or the deadline). */
  expected: number;
  batchSize?: number;
  timeoutMs?: number;
}

/**
 * Reads the log in readAll batches like a projection would, until `expected`
 * events arrived. Retries empty batches for a while: a log may hold back
 * committed events until older transactions finish.
 */
export async function readAllOf(store: EventStore, options: ReadAllOfOptions): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let after = options.after;
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  while (out.length < options.expected) {
    const batch = await store.readAll({
      ...(after ? { after } : {}),
      maxCount: options.batchSize ?? 500,
      ...(options.eventTypes ? { eventTypes: options.eventTypes } : {}),
    });
    const last = batch.at(-1);
    if (!last) {
      if (Date.now() > deadline) break;
      await sleep(20);
      continue;
    }
    out.push(...batch);
    after = last.position;
  }
  return out;
}

/** Waits until check() holds, polling; returns its last value. */
export async function eventually<T>(
  check: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(20);
  }
}

/** A subscription read step by step, each step bounded so a stuck subscription fails the test. */
export function openSubscription(store: EventStore, options: SubscribeAllOptions) {
  const controller = new AbortController();
  const iterator = store.subscribeAll({ ...options, signal: controller.signal })[Symbol.asyncIterator]();
  const next = async (timeoutMs = 10_000): Promise<IteratorResult<RecordedEvent>> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([iterator.next(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  const take = async (n: number, timeoutMs = 10_000) => {
    const out: RecordedEvent[] = [];
    while (out.length < n) {
      const step = await next(timeoutMs);
      if (step.done) throw new Error(`subscription ended after ${out.length} of ${n} events`);
      out.push(step.value);
    }
    return out;
  };
  return { controller, next, take };
}
