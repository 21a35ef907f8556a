import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface ApiData<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Fetch again (keeps the last data shown until the new answer arrives). */
  reload(): void;
}

export interface ApiDataOptions {
  /**
   * Keep the last answer (and the last error) shown while a new key loads, so a changed filter does
   * not flicker; a failure still drops the data. Without it, a new key starts empty.
   */
  keepStale?: boolean;
}

/**
 * Runs `load` when `key` changes (and on reload), aborting the previous request; the latest answer
 * wins. `key` null means "do not load".
 */
export function useApiData<T>(
  key: string | null,
  load: (signal: AbortSignal) => Promise<T>,
  { keepStale = false }: ApiDataOptions = {},
): ApiData<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: key !== null,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const lastKey = useRef<string | null>(null);
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    const sameKey = lastKey.current === key;
    lastKey.current = key;
    setState((s) =>
      keepStale ? { ...s, loading: true } : { data: sameKey ? s.data : null, error: null, loading: true },
    );
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false });
      },
      (error) => {
        if (!controller.signal.aborted)
          setState((s) => ({ data: sameKey && !keepStale ? s.data : null, error, loading: false }));
      },
    );
    return () => controller.abort();
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
