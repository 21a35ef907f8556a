import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore } from '@parley/eventstore';
import type { Logger } from '@parley/platform';

export interface Waker {
  /** Counts wake-ups; read it before a read of the log and pass it to wait. */
  readonly seq: number;
  /** Resolves on the next wake-up after `seq`, after `ms`, or at close, whichever comes first. */
  wait(ms: number, seq: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Wakes idle projection loops when the log grows, and all of them when `stop`
 * aborts. The port has no bare wake-up signal, so one subscribeAll per
 * runner, started at the head, serves as one: every event it yields is a
 * wake-up (its payload is ignored). Loops poll on their own as well, so a
 * broken subscription only costs latency.
 */
export function createWaker(store: EventStore, logger: Logger, stop: AbortSignal): Waker {
  let seq = 0;
  let closed = false;
  const waiters = new Set<() => void>();
  const abort = new AbortController();
  const end = (): void => {
    closed = true;
    abort.abort();
    for (const resolve of waiters) resolve();
    waiters.clear();
  };
  if (stop.aborted) end();
  else stop.addEventListener('abort', end, { once: true });

  const notify = (): void => {
    seq += 1;
    for (const resolve of waiters) resolve();
    waiters.clear();
  };

  const pump = (async () => {
    while (!abort.signal.aborted) {
      try {
        const head = await store.head();
        const options = { signal: abort.signal, batchSize: 500, ...(head ? { after: head.position } : {}) };
        for await (const _event of store.subscribeAll(options)) notify();
      } catch (err) {
        if (abort.signal.aborted) break;
        logger.warn({ err }, 'wake-up subscription failed; polling until it is back');
      }
      await sleep(1_000, undefined, { signal: abort.signal }).catch(() => {});
    }
  })();

  return {
    get seq() {
      return seq;
    },
    wait(ms, since) {
      if (closed || seq !== since) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      });
    },
    async close() {
      end();
      await pump;
    },
  };
}
