import { useEffect, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
}

/**
 * Loads `load(signal)` whenever `key` changes; a newer load aborts the older one, so a slow answer
 * never overwrites a newer view. Keeps the previous data while loading (no flicker).
 */
export function useResource<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): Resource<T> {
  const [state, setState] = useState<Resource<T>>({ data: null, error: null, loading: key !== null });
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ data: null, error, loading: false });
      },
    );
    return () => controller.abort();
  }, [key]);
  return state;
}
