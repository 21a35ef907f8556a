/**
 * The workers of one queue, for waking one that is idle instead of all: a new job needs one fetch,
 * and a worker at work fetches again as soon as its batch is done (it wakes itself), so waking it
 * only adds an empty fetch. The next idle worker in turn is woken; none when all are at work.
 */
export interface WakeRing {
  add(id: string): void;
  /** Runs a worker's batch, marked at work meanwhile. */
  busy<T>(id: () => string, fn: () => Promise<T>): Promise<T>;
  /** Wakes the next idle worker (pg-boss notifyWorker: it fetches now instead of after its poll). */
  wakeOne(): void;
}

export function createWakeRing(notify: (id: string) => void): WakeRing {
  const ids: string[] = [];
  const atWork = new Set<string>();
  let next = 0;
  return {
    add: (id) => {
      ids.push(id);
    },
    async busy(id, fn) {
      const self = id();
      atWork.add(self);
      try {
        return await fn();
      } finally {
        atWork.delete(self);
      }
    },
    wakeOne() {
      for (let i = 0; i < ids.length; i++) {
        const id = ids[(next + i) % ids.length] as string;
        if (atWork.has(id)) continue;
        next = (next + i + 1) % ids.length;
        notify(id);
        return;
      }
    },
  };
}
