/**
 * Writes the latest of a stream of values at most once per `intervalMs`, one write at a time:
 * values pushed meanwhile replace each other (only the newest is written). `close` waits for the
 * write in flight and drops what is pending (the caller writes the final state itself).
 */
export interface ThrottledWriter<T> {
  push(value: T): void;
  close(): Promise<void>;
}

export function throttledWriter<T>(
  write: (value: T) => Promise<void>,
  intervalMs: number,
  onError: (err: unknown) => void,
): ThrottledWriter<T> {
  let pending: { value: T } | undefined;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let closed = false;

  const flush = (): void => {
    timer = undefined;
    if (closed || !pending) return;
    const { value } = pending;
    pending = undefined;
    lastWrite = performance.now();
    writing = write(value)
      .catch(onError)
      .finally(() => {
        writing = undefined;
        schedule();
      });
  };
  const schedule = (): void => {
    if (closed || timer || writing || !pending) return;
    timer = setTimeout(flush, Math.max(0, lastWrite + intervalMs - performance.now()));
  };
  return {
    push(value) {
      pending = { value };
      schedule();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      pending = undefined;
      await writing;
    },
  };
}
