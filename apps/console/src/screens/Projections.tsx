import { useEffect, useRef, useState } from 'preact/hooks';
import '../ledger/ledger.css';
import { ApiError } from '../api.js';
import { formatInt, formatSeconds, formatUtc } from '../charts/format.js';
import { ApiProblem } from '../components/ApiProblem.js';
import { useSession } from '../context.js';
import { explainProjectionsError } from '../projections/explain.js';
import { isFinished, liveGeneration, stateChanges, stateClass, stateLabel } from '../projections/progress.js';
import { RebuildDialog } from '../projections/RebuildDialog.js';
import { RebuildProgress } from '../projections/RebuildProgress.js';
import type { Projection, ProjectionList } from '../projections/types.js';
import { useRebuilds } from '../projections/useRebuilds.js';

const LIST_INTERVAL_MS = 5_000;

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
  const [confirm, setConfirm] = useState<string | null>(null);
  const previous = useRef<Projection[]>([]);
  const listErrorRef = useRef<unknown>(null);
  listErrorRef.current = listError;

  const announce = (messages: string[]) => {
    if (messages.length > 0) setAnnouncement(messages.join('. '));
  };

  const rebuilds = useRebuilds({ announce, onFinished: () => void loadList() });
  const { watches, starting, startError } = rebuilds;

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
        if (r && !isFinished(r.state) && !rebuilds.isFollowing(p.name)) rebuilds.follow(r);
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
                        <RebuildProgress watch={w} onDismiss={() => rebuilds.dismiss(p.name)} />
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

      <RebuildDialog
        projection={confirm}
        onCancel={() => setConfirm(null)}
        onConfirm={(name) => {
          setConfirm(null);
          void rebuilds.start(name);
        }}
      />
    </section>
  );
}
