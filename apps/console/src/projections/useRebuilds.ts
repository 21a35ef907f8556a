import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { useSession } from '../context.js';
import { isFinished } from './progress.js';
import type { Watch } from './RebuildProgress.js';
import type { Rebuild } from './types.js';

const REBUILD_INTERVAL_MS = 1_000;

const rebuildPath = (name: string, id?: string) =>
  `/api/v1/projections/${encodeURIComponent(name)}/rebuilds${id ? `/${encodeURIComponent(id)}` : ''}`;

/**
 * The rebuilds the projections screen follows, one per projection: started here, joined (409), or
 * seen in the list. Each running one is polled every second until it completes or fails.
 */
export function useRebuilds({
  announce,
  onFinished,
}: {
  /** Messages for the screen's aria-live region. */
  announce(messages: string[]): void;
  /** A followed rebuild completed or failed (the list is worth reloading). */
  onFinished(): void;
}) {
  const { api } = useSession();
  const [watches, setWatches] = useState<Record<string, Watch>>({});
  const [startError, setStartError] = useState<{ name: string; error: unknown } | null>(null);
  const [starting, setStarting] = useState<string | null>(null);
  const watchesRef = useRef(watches);
  watchesRef.current = watches;

  const watch = (rebuild: Rebuild, joined: boolean) =>
    setWatches((w) => ({ ...w, [rebuild.projection]: { rebuild, joined, error: null } }));

  const running = Object.values(watches)
    .filter((w) => !isFinished(w.rebuild.state))
    .map((w) => w.rebuild.id)
    .join(',');
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      for (const w of Object.values(watchesRef.current)) {
        if (isFinished(w.rebuild.state)) continue;
        const { projection, id } = w.rebuild;
        api.get<{ rebuild: Rebuild }>(rebuildPath(projection, id)).then(
          ({ rebuild }) => {
            const before = watchesRef.current[projection]?.rebuild;
            if (before && before.state !== rebuild.state) {
              announce([`${projection} rebuild ${rebuild.state}`]);
              if (isFinished(rebuild.state)) onFinished();
            }
            setWatches((all) =>
              all[projection]?.rebuild.id === id
                ? { ...all, [projection]: { ...all[projection]!, rebuild, error: null } }
                : all,
            );
          },
          (error: unknown) =>
            setWatches((all) =>
              all[projection]?.rebuild.id === id
                ? { ...all, [projection]: { ...all[projection]!, error } }
                : all,
            ),
        );
      }
    }, REBUILD_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [running]);

  /** Starts a rebuild of `name`, or follows the one already running (409). */
  const start = async (name: string) => {
    setStartError(null);
    setStarting(name);
    try {
      const { rebuild } = await api.post<{ rebuild: Rebuild }>(rebuildPath(name));
      watch(rebuild, false);
      announce([`${name} rebuild ${rebuild.state}`]);
    } catch (error) {
      const rebuildId = rebuildIdOf(error);
      if (rebuildId) {
        try {
          const { rebuild } = await api.get<{ rebuild: Rebuild }>(rebuildPath(name, rebuildId));
          watch(rebuild, true);
          announce([`${name}: a rebuild is already running, following it`]);
        } catch (inner) {
          setStartError({ name, error: inner });
        }
      } else {
        setStartError({ name, error });
      }
    } finally {
      setStarting(null);
      document.getElementById(`rebuild-button-${name}`)?.focus();
    }
  };

  return {
    watches,
    starting,
    startError,
    start,
    /** Whether a rebuild of `name` is followed (as of the last render). */
    isFollowing: (name: string) => watchesRef.current[name] !== undefined,
    /** Follows a rebuild that was already running (seen in the list). */
    follow: (rebuild: Rebuild) => watch(rebuild, true),
    dismiss: (name: string) =>
      setWatches((all) => {
        const { [name]: _gone, ...rest } = all;
        return rest;
      }),
  };
}

function rebuildIdOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const body = error.body as { error?: { details?: { rebuildId?: unknown } } } | null;
  const id = body?.error?.details?.rebuildId;
  return typeof id === 'string' ? id : null;
}
