import { formatInt, formatUtc } from '../charts/format.js';
import { ErrorBox } from '../components/ErrorBox.js';
import type { ApiData } from '../components/useApiData.js';
import { DASH, formatCost, formatMs, formatPct } from './format.js';
import type { SessionAnalysis, SessionMetrics } from './types.js';
import { Stat } from './ui.js';

export function MetricsPanel({ metrics }: { metrics: ApiData<SessionMetrics> }) {
  const m = metrics.data;
  return (
    <section class="panel" aria-labelledby="metrics-title">
      <h2 id="metrics-title">Metrics</h2>
      {metrics.error ? <ErrorBox error={metrics.error} what="Loading metrics" /> : null}
      {!m && metrics.loading ? <p class="muted">Loading…</p> : null}
      {m ? (
        <dl class="stats" aria-label="Session metrics">
          <Stat label="Turns" value={formatInt(m.turnCount, DASH)} />
          <Stat label="Events" value={formatInt(m.eventCount, DASH)} />
          <Stat
            label="Agent latency"
            value={formatMs(m.totalLatencyMs)}
            title="Sum of the turns' latencies"
          />
          <Stat label="Wall clock" value={formatMs(m.wallClockMs)} />
          <Stat label="LLM calls" value={formatInt(m.llmCallCount, DASH)} />
          <Stat label="Tokens" value={formatInt(m.tokenUsage?.totalTokens, DASH)} />
          <Stat label="Cost" value={formatCost(m.totalCost)} />
          <Stat
            label="Tool calls"
            value={`${formatInt(m.toolCallCount, DASH)} · ${formatPct(m.toolSuccessRate)} ok`}
          />
          <Stat
            label="Guardrails"
            value={`${formatInt(m.guardrailEvaluationCount, DASH)} · ${formatPct(m.guardrailBlockRate)} blocked`}
          />
          <Stat label="Errors" value={formatInt(m.errorCount, DASH)} />
        </dl>
      ) : null}
    </section>
  );
}

export function AnalysisPanel({
  analysis,
  onSelectSpan,
}: {
  analysis: ApiData<SessionAnalysis>;
  onSelectSpan(spanId: string): void;
}) {
  const a = analysis.data;
  const empty =
    a &&
    a.slowSpans.length + a.errorPatterns.length + a.decisionAnomalies.length + a.suggestions.length === 0;
  return (
    <section class="panel" aria-labelledby="analysis-title">
      <h2 id="analysis-title">Analysis</h2>
      {analysis.error ? <ErrorBox error={analysis.error} what="Loading the analysis" /> : null}
      {!a && analysis.loading ? <p class="muted">Loading…</p> : null}
      {empty ? <p class="muted">Nothing to report: no slow span, error or anomaly.</p> : null}
      {a && a.suggestions.length > 0 ? (
        <ul class="suggestions" aria-label="Suggestions">
          {a.suggestions.map((s) => (
            <li key={s.code}>
              <span class="tag">{s.code}</span> {s.message}
            </li>
          ))}
        </ul>
      ) : null}
      {a && a.slowSpans.length > 0 ? (
        <>
          <h3>Slow spans</h3>
          <ul class="plain" aria-label="Slow spans">
            {a.slowSpans.map((s) => (
              <li key={`${s.spanId}-${s.eventId ?? ''}`}>
                <button type="button" class="link" onClick={() => onSelectSpan(s.spanId)}>
                  {s.name ?? s.eventType}
                </button>{' '}
                <span class="muted">
                  {s.eventType} · {formatMs(s.durationMs)}
                  {s.thresholdMs ? ` (≥ ${formatMs(s.thresholdMs)})` : ''}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {a && a.errorPatterns.length > 0 ? (
        <>
          <h3>Error patterns</h3>
          <ul class="plain" aria-label="Error patterns">
            {a.errorPatterns.map((p) => (
              <li key={`${p.eventType}/${p.name}/${p.code}`}>
                <strong>{p.count}×</strong> {p.eventType} {p.name ?? ''}{' '}
                {p.code ? <code>{p.code}</code> : null}{' '}
                <span class="muted">
                  {formatUtc(p.firstAt, true, DASH)} – {formatUtc(p.lastAt, true, DASH)}
                </span>
                {p.spanIds[0] ? (
                  <>
                    {' '}
                    <button type="button" class="link" onClick={() => onSelectSpan(p.spanIds[0] as string)}>
                      show
                    </button>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {a && a.decisionAnomalies.length > 0 ? (
        <>
          <h3>Decision anomalies</h3>
          <ul class="plain" aria-label="Decision anomalies">
            {a.decisionAnomalies.map((d, i) => (
              <li key={i}>
                <span class="tag warn">{d.kind}</span> {d.message ?? ''}{' '}
                {d.details ? <code>{JSON.stringify(d.details)}</code> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
