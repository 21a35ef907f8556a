import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type Api, ApiError, loadAllPages } from '../api.js';
import { formatInt, formatUtc } from '../charts/format.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { useApiData } from '../components/useApiData.js';
import { useSession } from '../context.js';
import { href } from '../router.js';
import { CallsPanel, turnCount } from '../sessions/Calls.js';
import { Conversation } from '../sessions/Conversation.js';
import { DASH, formatCost, formatMs } from '../sessions/format.js';
import { AnalysisPanel, MetricsPanel } from '../sessions/Insights.js';
import { Recordings } from '../sessions/Recordings.js';
import { SpanDetail } from '../sessions/SpanDetail.js';
import { ancestorsOf, buildSpanTree } from '../sessions/spanTree.js';
import type {
  LedgerCall,
  LedgerPage,
  SessionAnalysis,
  SessionMetrics,
  SessionSummary,
  SessionsPage,
  TraceEvent,
  TracesPage,
} from '../sessions/types.js';
import { Badge, Stat } from '../sessions/ui.js';
import { Waterfall } from '../sessions/Waterfall.js';

/** While the trace loads (or failed): one array, so that what is derived from it stays put. */
const NO_EVENTS: TraceEvent[] = [];
const TRACE_PAGE = 200;
const TRACE_MAX_PAGES = 50;

async function loadTraces(
  api: Api,
  base: string,
  signal: AbortSignal,
): Promise<{ events: TraceEvent[]; truncated: boolean }> {
  const { rows, truncated } = await loadAllPages(
    (offset) => api.get<TracesPage>(`${base}/traces`, { limit: TRACE_PAGE, offset }, { signal }),
    (answer) => answer.traces,
    TRACE_MAX_PAGES,
  );
  return { events: rows, truncated };
}

/** Every LLM call of the session from the ledger with its payload (x-api-key only), around the trace's time. */
async function loadLedger(
  api: Api,
  projectId: string,
  sessionId: string,
  window: { from: string; to: string },
  signal: AbortSignal,
): Promise<LedgerCall[]> {
  const { rows } = await loadAllPages(
    (offset) =>
      api.get<LedgerPage>(
        `/api/public/analytics/projects/${encodeURIComponent(projectId)}/llm-ledger`,
        {
          fromDate: window.from,
          toDate: window.to,
          sessionIds: [sessionId],
          dataMode: 'full',
          sortBy: 'timestamp',
          sortOrder: 'asc',
          limit: 100,
          offset,
        },
        { signal },
      ),
    (answer) => answer.generations,
    20,
  );
  return rows;
}

export function SessionDetail({
  projectId,
  sessionId,
}: {
  projectId: string;
  sessionId: string;
  query?: URLSearchParams;
}) {
  const { api } = useSession();
  const base = `/api/projects/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(sessionId)}`;
  const key = `${projectId}|${sessionId}`;

  const summary = useApiData<SessionSummary | null>(key, async (signal) => {
    const page = await api.get<SessionsPage>(
      `/api/public/analytics/projects/${encodeURIComponent(projectId)}/sessions`,
      { sessionIds: [sessionId], limit: 1 },
      { signal },
    );
    return page.sessions[0] ?? null;
  });
  const traces = useApiData(key, (signal) => loadTraces(api, base, signal));
  const metrics = useApiData<SessionMetrics>(key, (signal) =>
    api.get<{ data: SessionMetrics }>(`${base}/metrics`, undefined, { signal }).then((r) => r.data),
  );
  const analysis = useApiData<SessionAnalysis>(key, (signal) =>
    api.get<{ data: SessionAnalysis }>(`${base}/analysis`, undefined, { signal }).then((r) => r.data),
  );

  const events = traces.data?.events ?? NO_EVENTS;
  const roots = useMemo(() => buildSpanTree(events), [events]);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [selectedId, setSelectedId] = useState<string | null>(null);
  useEffect(() => {
    // Turns open by default: their direct steps show, deeper levels on demand.
    setExpanded(new Set(roots.map((r) => r.event.eventId)));
    setSelectedId(null);
  }, [roots]);
  const selected = events.find((e) => e.eventId === selectedId) ?? null;

  const window = useMemo(() => {
    if (events.length === 0) return null;
    const times = events.map((e) => Date.parse(e.startedAt)).filter(Number.isFinite);
    const day = 86_400_000;
    return {
      from: new Date(Math.min(...times) - day).toISOString(),
      to: new Date(Math.max(...times) + day).toISOString(),
    };
  }, [events]);
  // The payloads come from the ledger, which takes platform keys only (spec 000 §5): read it once
  // per session, the first time an LLM call is selected, and never with a user JWT.
  const withKey = api.credential.kind === 'api_key';
  const wantsLedger =
    withKey && selected?.eventType === 'llm_call' && selected.llmCall !== null && window !== null;
  const ledgerFor = useRef<string | null>(null);
  if (wantsLedger) ledgerFor.current = key;
  const ledger = useApiData<LedgerCall[]>(ledgerFor.current === key ? key : null, (signal) =>
    window ? loadLedger(api, projectId, sessionId, window, signal) : Promise.resolve([]),
  );

  const selectSpan = (spanId: string) => {
    const target = events.find((e) => e.spanId === spanId);
    if (!target) return;
    const path = ancestorsOf(roots, target.eventId) ?? [];
    setExpanded((prev) => new Set([...prev, ...path]));
    setSelectedId(target.eventId);
    setTimeout(
      () =>
        document
          .querySelector('.waterfall tr.selected button.wf-select')
          ?.scrollIntoView({ block: 'center' }),
      0,
    );
  };

  const s = summary.data;
  const notFound =
    traces.error instanceof ApiError && traces.error.code === 'SESSION_NOT_FOUND' && !s && !summary.loading;

  if (notFound) {
    return (
      <section class="session-detail" aria-labelledby="session-title">
        <div class="screen-head">
          <a href={href(['p', projectId, 'sessions'])} class="back">
            ← Sessions
          </a>
          <h1 id="session-title" class="mono">
            <span class="visually-hidden">Session </span>
            {sessionId}
          </h1>
        </div>
        <ErrorBox error={traces.error} what="Opening this session">
          <p class="help">No session with this id is known in this project.</p>
        </ErrorBox>
      </section>
    );
  }

  return (
    <section class="session-detail" aria-labelledby="session-title">
      <div class="screen-head">
        <a href={href(['p', projectId, 'sessions'])} class="back">
          ← Sessions
        </a>
        <h1 id="session-title" class="mono">
          <span class="visually-hidden">Session </span>
          {sessionId}
        </h1>
        {s ? (
          <>
            <Badge kind="status" value={s.status} />
            <Badge kind="containment" value={s.containmentType} />
            <span class="tag">{s.channel}</span>
            <span class="tag">{s.environment}</span>
            {s.isTest ? <span class="tag">test</span> : null}
          </>
        ) : null}
      </div>
      {s ? (
        <dl class="stats summary" aria-label="Session summary">
          <Stat label="Started" value={formatUtc(s.createdAt, true, DASH)} />
          <Stat label="Ended" value={formatUtc(s.endedAt, true, DASH)} />
          <Stat label="Duration" value={formatMs(s.durationMs)} />
          <Stat label="Messages" value={`${s.messageCount.user} user · ${s.messageCount.agent} agent`} />
          <Stat label="Trace events" value={formatInt(s.traceEventCount.total, DASH)} />
          <Stat
            label="Tokens"
            value={formatInt(s.tokenCount.totalTokens, DASH)}
            title={`${s.tokenCount.inputTokens} in (${s.tokenCount.cachedTokens} cached) · ${s.tokenCount.outputTokens} out`}
          />
          <Stat label="Cost" value={formatCost(s.estimatedCost)} />
          {Object.keys(s.traceDimensions).length > 0 ? (
            <Stat
              label="Dimensions"
              value={Object.entries(s.traceDimensions)
                .map(([k, v]) => `${k}=${v}`)
                .join(' · ')}
            />
          ) : null}
        </dl>
      ) : summary.error instanceof ApiError && summary.error.needsApiKey ? (
        <p class="help">
          The summary line needs a platform API key with analytics.read; the rest below uses your sign-in.
        </p>
      ) : summary.error ? (
        <ErrorBox error={summary.error} what="Loading the summary" />
      ) : summary.data === null && !summary.loading ? (
        <p class="help">No summary for this session in the session read model.</p>
      ) : null}

      <div class="detail-grid">
        <div class="detail-side">
          <Conversation api={api} projectId={projectId} sessionId={sessionId} />
          <Recordings api={api} projectId={projectId} sessionId={sessionId} />
        </div>
        <div class="detail-main">
          <section class="panel trace-panel" aria-labelledby="trace-title">
            <div class="panel-head">
              <h2 id="trace-title">Trace</h2>
              {traces.data ? (
                <span class="muted">
                  {events.length} events · {turnCount(roots.map((r) => r.event))} turns
                </span>
              ) : null}
              <span class="spacer" />
              {events.length > 0 ? (
                <>
                  <button
                    type="button"
                    class="secondary small"
                    onClick={() => setExpanded(new Set(events.map((e) => e.eventId)))}
                  >
                    Expand all
                  </button>
                  <button type="button" class="secondary small" onClick={() => setExpanded(new Set())}>
                    Collapse all
                  </button>
                </>
              ) : null}
            </div>
            {traces.error ? <ErrorBox error={traces.error} what="Loading the trace" /> : null}
            {traces.loading && !traces.data ? <p class="muted">Loading the trace…</p> : null}
            {traces.data?.truncated ? <p class="help">Showing the first {events.length} events.</p> : null}
            {traces.data ? (
              <div class={selected ? 'trace-body with-detail' : 'trace-body'}>
                <Waterfall
                  events={events}
                  roots={roots}
                  expanded={expanded}
                  onExpandedChange={setExpanded}
                  selectedId={selectedId}
                  onSelect={(id) => setSelectedId(id === selectedId ? null : id)}
                />
                {selected ? (
                  <SpanDetail
                    event={selected}
                    ledger={selected.eventType === 'llm_call' && withKey ? ledger : null}
                    payloadNeedsKey={!withKey}
                    onClose={() => setSelectedId(null)}
                  />
                ) : null}
              </div>
            ) : null}
            {traces.data && !selected && events.length > 0 ? (
              <p class="help">Select a span for its details; ↑ ↓ move, → expands, ← collapses.</p>
            ) : null}
          </section>
          <div class="insights">
            <CallsPanel metrics={metrics} />
            <MetricsPanel metrics={metrics} />
            <AnalysisPanel analysis={analysis} onSelectSpan={selectSpan} />
          </div>
        </div>
      </div>
    </section>
  );
}
