import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore, LogWakeups } from '@parley/eventstore';
import type { Logger } from '@parley/platform';

export interface Waker {
  /** Counts wake-ups; read it before a read of the log and pass it to wait. */
  readonly seq: number;
  /**
   * Resolves on the next wake-up after `seq` (true), after `ms` or at close (false), whichever
   * comes first; with `rechecking` (the last wake-up's read found nothing), also at the next poke.
   */
  wait(ms: number, seq: number, rechecking?: boolean): Promise<boolean>;
  /**
   * A loop of this runner committed a batch. Its transaction held back every append that started
   * after it (docs/log.md: readable once no older transaction is open), so a wake-up whose read
   * found nothing may find it now: the loops waiting to re-check read again.
   */
  poke(): void;
  close(): Promise<void>;
}

/**
 * Wakes idle projection loops when the log grows, and all of them when `stop` aborts. From the
 * store's bare wake-ups where it has them (PostgreSQL: its appends and LISTEN, no read of the
 * log); otherwise one subscribeAll per runner, started at the head, whose every event is a
 * wake-up (its payload is ignored). Loops poll on their own as well, so a broken subscription
 * only costs latency.
 */
export function createWaker(store: EventStore, logger: Logger, stop: AbortSignal): Waker {
  let seq = 0;
  let closed = false;
  const waiters = new Set<() => void>();
  const recheckers = new Set<() => void>();
  const abort = new AbortController();
  const end = (): void => {
    closed = true;
    abort.abort();
    for (const resolve of [...waiters, ...recheckers]) resolve();
    waiters.clear();
    recheckers.clear();
  };
  if (stop.aborted) end();
  else stop.addEventListener('abort', end, { once: true });

  const notify = (): void => {
    seq += 1;
    for (const resolve of waiters) resolve();
    waiters.clear();
  };
  const poke = (): void => {
    for (const resolve of recheckers) resolve();
    recheckers.clear();
  };

  const wakeups = store.wakeups?.();
  const pump = wakeups
    ? relayWakeups(wakeups, notify, abort.signal)
    : subscribeForWakeups(store, logger, notify, abort.signal);

  return {
    get seq() {
      return seq;
    },
    wait(ms, since, rechecking = false) {
      if (closed) return Promise.resolve(false);
      if (seq !== since) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (woken: boolean) => {
          clearTimeout(timer);
          waiters.delete(onWake);
          recheckers.delete(onPoke);
          resolve(woken);
        };
        const onWake = () => done(!closed);
        // A poke is not a wake-up of the log: if its read finds nothing, the backoff goes on.
        const onPoke = () => done(false);
        const timer = setTimeout(() => done(false), ms);
        waiters.add(onWake);
        if (rechecking) recheckers.add(onPoke);
      });
    },
    poke,
    async close() {
      end();
      await pump;
    },
  };
}

/** Every wake-up of the store, as it comes (none is lost between two waits: `seen` carries over). */
async function relayWakeups(wakeups: LogWakeups, notify: () => void, signal: AbortSignal): Promise<void> {
  let seen = wakeups.generation();
  while (!signal.aborted) {
    await wakeups.wait(seen, 60_000, signal);
    const now = wakeups.generation();
    if (now !== seen) {
      seen = now;
      notify();
    }
  }
}

async function subscribeForWakeups(
  store: EventStore,
  logger: Logger,
  notify: () => void,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const head = await store.head();
      const options = { signal, batchSize: 500, ...(head ? { after: head.position } : {}) };
      for await (const _event of store.subscribeAll(options)) notify();
    } catch (err) {
      if (signal.aborted) break;
      logger.warn({ err }, 'wake-up subscription failed; polling until it is back');
    }
    await sleep(1_000, undefined, { signal }).catch(() => {});
  }
}
