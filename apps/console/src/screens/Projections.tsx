import { useEffect, useRef, useState } from 'preact/hooks';
import '../ledger/ledger.css';
import { ApiError } from '../api.js';
import { formatInt, formatSeconds, formatUtc } from '../charts/format.js';
import { ApiProblem } from '../components/ApiProblem.js';
import { useSession } from '../context.js';
import { explainProjectionsError } from '../projections/explain.js';
import {
  isFinished,
  liveGeneration,
  rebuildProgress,
  stateChanges,
  stateLabel,
} from '../projections/progress.js';
import type { Projection, ProjectionList, Rebuild } from '../projections/types.js';

const LIST_INTERVAL_MS = 5_000;
const REBUILD_INTERVAL_MS = 1_000;

interface Watch {
  rebuild: Rebuild;
  /** The rebuild was already running when we asked (409). */
  joined: boolean;
  error: unknown;
}

const rebuildPath = (name: string, id?: string) =>
  `/api/v1/projections/${encodeURIComponent(name)}/rebuilds${id ? `/${encodeURIComponent(id)}` : ''}`;

function stateClass(state: string): string {
  if (state === 'ok' || state === 'completed') return 'ok';
  if (state === 'failed' || state === 'rebuild_required') return 'bad';
  if (state === 'building' || state === 'running' || state === 'queued') return 'busy';
  return 'idle';
}

function RebuildProgress({ watch, onDismiss }: { watch: Watch; onDismiss(): void }) {
  const r = watch.rebuild;
  const p = rebuildProgress(r);
  const id = `rebuild-${r.id}`;
  return (
    <div class="rebuild">
      <span id={`${id}-label`} class="rebuild-label">
        {`Rebuild of ${r.projection}`}
        {watch.joined ? ' (already running)' : ''}
      </span>
      <progress
        aria-labelledby={`${id}-label`}
        aria-describedby={`${id}-status`}
        max={p.max}
        {...(p.value === undefined ? {} : { value: p.value })}
      />
      <span id={`${id}-status`} class="rebuild-status">
        <span class={`badge ${stateClass(r.state)}`}>{r.state}</span>{' '}
        {p.percent === null ? '' : `${p.percent}% · `}
        {p.label}
        {r.eventsPerSecond !== null && r.state !== 'queued'
          ? ` · ${formatInt(r.eventsPerSecond)} events/s`
          : ''}
        {p.etaSeconds !== null && r.state === 'running'
          ? ` · about ${formatSeconds(Math.ceil(p.etaSeconds))} left`
          : ''}
        {r.generation !== null ? ` · generation ${r.generation}` : ''}
        {r.state === 'completed' && r.finishedAt ? ` · finished ${formatUtc(r.finishedAt)}` : ''}
      </span>
      {r.error ? <span class="error">{r.error}</span> : null}
      {watch.error ? <ApiProblem error={watch.error} title="Progress could not be read" /> : null}
      {isFinished(r.state) ? (
        <button type="button" class="link" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}

/**
 * The deployment's projections (read models): lag and state, refreshed every 5 s, and rebuilds with
 * their progress (polled every second). Deployment-wide: needs projections.read / projections.admin.
 */
export function Projections(_props: { query?: URLSearchParams }) {
  const { api, me } = useSession();
  const [list, setList] = useState<ProjectionList | null>(null);
  const [listError, setListError] = useState<unknown>(null);
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const [paused, setPaused] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const [watches, setWatches] = useState<Record<string, Watch>>({});
  const [confirm, setConfirm] = useState<string | null>(null);
  const [startError, setStartError] = useState<{ name: string; error: unknown } | null>(null);
  const [starting, setStarting] = useState<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const previous = useRef<Projection[]>([]);
  const watchesRef = useRef(watches);
  const listErrorRef = useRef<unknown>(null);
  listErrorRef.current = listError;
  watchesRef.current = watches;

  const announce = (messages: string[]) => {
    if (messages.length > 0) setAnnouncement(messages.join('. '));
  };

  const watch = (rebuild: Rebuild, joined: boolean) =>
    setWatches((w) => ({ ...w, [rebuild.projection]: { rebuild, joined, error: null } }));

  const loadList = async () => {
    try {
      const next = await api.get<ProjectionList>('/api/v1/projections');
      announce(stateChanges(previous.current, next.projections));
      previous.current = next.projections;
      setList(next);
      setListError(null);
      setUpdatedAt(new Date());
      // Follow rebuilds started elsewhere (another tab, the CLI).
      for (const p of next.projections) {
        const r = p.rebuild;
        if (r && !isFinished(r.state) && !watchesRef.current[p.name]) watch(r, true);
      }
    } catch (error) {
      setListError(error);
    }
  };

  useEffect(() => {
    void loadList();
  }, []);
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      // A refusal (401, 403) does not go away by asking again: wait for "Refresh now".
      const refused =
        listErrorRef.current instanceof ApiError && [401, 403].includes(listErrorRef.current.status);
      if (!refused) void loadList();
    }, LIST_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [paused]);

  // Every running rebuild is polled every second until it completes or fails.
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
              if (isFinished(rebuild.state)) void loadList();
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

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (confirm && !d.open) {
      d.showModal();
      d.querySelector<HTMLButtonElement>('button.secondary')?.focus();
    }
    if (!confirm && d.open) d.close();
  }, [confirm]);

  const start = async (name: string) => {
    setConfirm(null);
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

  const canRebuild = me.permissions.includes('projection:rebuild');
  return (
    <section class="projections" aria-labelledby="projections-title">
      <div class="screen-head">
        <h1 id="projections-title">Projections</h1>
        <span class="help">
          {list?.head.position ? `Log head ${list.head.position} · ${formatUtc(list.head.recordedAt)}` : ''}
          {updatedAt ? ` · updated ${formatUtc(updatedAt.toISOString())}` : ''}
        </span>
        <button
          type="button"
          class="secondary small"
          aria-pressed={paused}
          onClick={() => setPaused(!paused)}
        >
          {paused ? 'Resume auto-refresh' : 'Pause auto-refresh'}
        </button>
        <button type="button" class="secondary small" onClick={() => void loadList()}>
          Refresh now
        </button>
      </div>
      <p class="help">
        Read models of the whole deployment (every tenant and project), refreshed every 5 s
        {paused ? ' (paused)' : ''}. A rebuild replays the event log into a new generation while the current
        one keeps serving{canRebuild ? '.' : '; starting one needs the scope projections.admin.'}
      </p>
      <div class="visually-hidden" aria-live="polite" role="status">
        {announcement}
      </div>
      {listError ? (
        <ApiProblem error={listError} title="Projections unavailable" explain={explainProjectionsError} />
      ) : null}
      {startError ? (
        <ApiProblem
          error={startError.error}
          title={`The rebuild of ${startError.name} did not start`}
          explain={explainProjectionsError}
        />
      ) : null}
      {list ? (
        <div class="table-scroll panel flush">
          <table class="dense">
            <caption class="visually-hidden">Projections: lag and state</caption>
            <thead>
              <tr>
                <th scope="col">Projection</th>
                <th scope="col">State</th>
                <th scope="col">Live generation</th>
                <th scope="col" class="num">
                  Events behind
                </th>
                <th scope="col" class="num">
                  Seconds behind
                </th>
                <th scope="col">Checkpoint</th>
                <th scope="col">Last event (UTC)</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.projections.map((p) => {
                const g = liveGeneration(p);
                const w = watches[p.name];
                const busy = starting === p.name || (w !== undefined && !isFinished(w.rebuild.state));
                return [
                  <tr key={p.name}>
                    <th scope="row" class="mono">
                      {p.name}
                    </th>
                    <td>
                      <span class={`badge ${stateClass(p.state)}`}>{stateLabel(p.state)}</span>
                      {g?.failure ? <div class="error small-text">{g.failure}</div> : null}
                    </td>
                    <td>
                      {p.liveGeneration === null ? '–' : `gen ${p.liveGeneration} · v${p.liveVersion ?? '?'}`}
                      {p.versionMismatch ? (
                        <span class="badge bad" title="The code's version differs from the live generation's">
                          {`code v${p.codeVersion ?? '?'}`}
                        </span>
                      ) : null}
                    </td>
                    <td class="num">
                      {g?.eventsBehind === null || g === null
                        ? '–'
                        : `${g.eventsBehindCapped ? '≥ ' : ''}${formatInt(g.eventsBehind)}`}
                    </td>
                    <td class="num">
                      {g?.secondsBehind === null || g === null ? '–' : formatSeconds(g.secondsBehind)}
                    </td>
                    <td class="mono">{g?.checkpoint ?? '–'}</td>
                    <td class="nowrap">{formatUtc(g?.lastEventRecordedAt ?? null)}</td>
                    <td>
                      <button
                        type="button"
                        class="secondary small"
                        id={`rebuild-button-${p.name}`}
                        disabled={busy}
                        aria-label={`Rebuild ${p.name}`}
                        onClick={() => setConfirm(p.name)}
                      >
                        {busy ? 'Rebuilding…' : 'Rebuild'}
                      </button>
                    </td>
                  </tr>,
                  w ? (
                    <tr key={`${p.name}-rebuild`} class="detail-row">
                      <td colSpan={8}>
                        <RebuildProgress
                          watch={w}
                          onDismiss={() =>
                            setWatches((all) => {
                              const { [p.name]: _gone, ...rest } = all;
                              return rest;
                            })
                          }
                        />
                      </td>
                    </tr>
                  ) : null,
                ];
              })}
            </tbody>
          </table>
        </div>
      ) : !listError ? (
        <p class="loading">Loading projections…</p>
      ) : null}

      <dialog
        ref={dialog}
        class="confirm"
        aria-labelledby="rebuild-confirm-title"
        aria-describedby="rebuild-confirm-text"
        onClose={() => setConfirm(null)}
      >
        {confirm ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void start(confirm);
            }}
          >
            <h2 id="rebuild-confirm-title">{`Rebuild ${confirm}?`}</h2>
            <div id="rebuild-confirm-text">
              <p>
                This rebuilds the <strong>{confirm}</strong> read model for the{' '}
                <strong>whole deployment</strong> (every tenant and project), not only the project you are
                looking at: the worker replays the entire event log into a new generation.
              </p>
              <p>
                The current generation keeps serving reads until the new one takes over; a large log takes a
                while.
              </p>
            </div>
            <div class="dialog-actions">
              <button type="button" class="secondary" onClick={() => setConfirm(null)}>
                Cancel
              </button>
              <button type="submit">Start rebuild</button>
            </div>
          </form>
        ) : null}
      </dialog>
    </section>
  );
}

function rebuildIdOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const body = error.body as { error?: { details?: { rebuildId?: unknown } } } | null;
  const id = body?.error?.details?.rebuildId;
  return typeof id === 'string' ? id : null;
}
