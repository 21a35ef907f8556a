import { ApiError } from '../api.js';
import { formatInt, formatUtc } from '../charts/format.js';
import { ErrorBox } from '../components/ErrorBox.js';
import type { ApiData } from '../components/useApiData.js';
import { agentDetails } from './agentSpans.js';
import { DASH, formatCost, formatMs } from './format.js';
import type { LedgerCall, TraceEvent } from './types.js';
import { Badge } from './ui.js';

const AGENT_HEADINGS: Record<string, string> = {
  tool_call: 'Tool call',
  tool_result: 'Tool result',
  handoff: 'Handoff',
  decision: 'Decision',
  guardrail_eval: 'Guardrail',
};

/**
 * The selected span: its fields and attributes; for an LLM call the model, tokens, cost and
 * payload; for a tool call, handoff, decision or guardrail evaluation what happened, in words.
 */
export function SpanDetail({
  event,
  ledger,
  payloadNeedsKey = false,
  onClose,
}: {
  event: TraceEvent;
  ledger: ApiData<LedgerCall[]> | null;
  payloadNeedsKey?: boolean;
  onClose(): void;
}) {
  const call = event.llmCall;
  return (
    <section class="span-detail" aria-labelledby="span-detail-title">
      <div class="panel-head">
        <h3 id="span-detail-title">
          <span class={`type-pill type-${event.eventType}`}>{event.eventType}</span>{' '}
          {event.name ?? '(unnamed)'}
        </h3>
        <button type="button" class="link" onClick={onClose}>
          Close
        </button>
      </div>
      <dl class="kv" aria-label="Span fields">
        <dt>Status</dt>
        <dd>
          <Badge value={event.status} />
        </dd>
        <dt>Started</dt>
        <dd>{formatUtc(event.startedAt, true, DASH)}</dd>
        <dt>Duration</dt>
        <dd>{formatMs(event.durationMs)}</dd>
        <dt>Span id</dt>
        <dd class="mono">{event.spanId}</dd>
        <dt>Parent</dt>
        <dd class="mono">{event.parentSpanId ?? '—'}</dd>
        {event.decisionKind ? (
          <>
            <dt>Decision kind</dt>
            <dd>{event.decisionKind}</dd>
          </>
        ) : null}
      </dl>
      {event.eventType === 'llm_call' ? (
        call ? (
          <section aria-label="LLM call">
            <h4>LLM call</h4>
            <dl class="kv" aria-label="LLM call fields">
              <dt>Model</dt>
              <dd>{call.model ?? 'unknown'}</dd>
              <dt>Provider</dt>
              <dd>{call.provider ?? 'unknown'}</dd>
              <dt>Status</dt>
              <dd>
                <Badge value={call.status} />
              </dd>
              <dt>Input tokens</dt>
              <dd>
                {formatInt(call.inputTokens, DASH)}
                {call.cachedTokens ? (
                  <span class="muted"> ({formatInt(call.cachedTokens, DASH)} cached)</span>
                ) : null}
              </dd>
              <dt>Output tokens</dt>
              <dd>
                {formatInt(call.outputTokens, DASH)}
                {call.reasoningTokens ? (
                  <span class="muted"> ({formatInt(call.reasoningTokens, DASH)} reasoning)</span>
                ) : null}
              </dd>
              <dt>Total tokens</dt>
              <dd>{formatInt(call.totalTokens, DASH)}</dd>
              <dt>Cost</dt>
              <dd>{formatCost(call.cost)}</dd>
              <dt>Latency</dt>
              <dd>{formatMs(call.latencyMs)}</dd>
              <dt>Time to first token</dt>
              <dd>{formatMs(call.timeToFirstTokenMs)}</dd>
              <dt>Streaming</dt>
              <dd>{call.streamingUsed === null ? '—' : call.streamingUsed ? 'yes' : 'no'}</dd>
              <dt>Call id</dt>
              <dd class="mono">{call.callId}</dd>
            </dl>
            {payloadNeedsKey ? <PayloadNeedsKey /> : <Payload callId={call.callId} ledger={ledger} />}
          </section>
        ) : (
          <p class="muted">The LLM call of this span ({event.llmCallId ?? 'no call id'}) is not recorded.</p>
        )
      ) : null}
      {agentDetails(event).length === 0 ? null : (
        <section aria-label="Agent action">
          <h4>{AGENT_HEADINGS[event.eventType] ?? 'Agent action'}</h4>
          <dl class="kv" aria-label="Agent action fields">
            {agentDetails(event).map(([label, value]) => (
              <>
                <dt>{label}</dt>
                <dd class={label === 'Arguments' || label === 'Result' ? 'mono' : undefined}>{value}</dd>
              </>
            ))}
          </dl>
        </section>
      )}
      <h4>Attributes</h4>
      {Object.keys(event.attributes ?? {}).length === 0 ? (
        <p class="muted">None recorded.</p>
      ) : (
        <pre class="json">{JSON.stringify(event.attributes, null, 2)}</pre>
      )}
    </section>
  );
}

function PayloadNeedsKey() {
  return (
    <p class="muted">
      The prompt and response come from the LLM ledger, which needs a platform API key with analytics.read.
    </p>
  );
}

function Payload({ callId, ledger }: { callId: string; ledger: ApiData<LedgerCall[]> | null }) {
  if (!ledger) return null;
  if (ledger.loading && !ledger.data) return <p class="muted">Loading the payload…</p>;
  if (ledger.error) {
    if (ledger.error instanceof ApiError && ledger.error.needsApiKey) return <PayloadNeedsKey />;
    return <ErrorBox error={ledger.error} what="Loading the payload" />;
  }
  const row = ledger.data?.find((g) => g.callId === callId);
  if (!row) return <p class="muted">This call is not in the LLM ledger (yet).</p>;
  if (row.payloadState === 'not_stored') return <p class="muted">Payload not stored for this call.</p>;
  if (row.payloadState === 'too_large')
    return <p class="muted">Payload too large for the ledger (kept in the log only).</p>;
  if (!row.payload) return <p class="muted">Payload not returned.</p>;
  return (
    <>
      <h4>Prompt</h4>
      <PromptView prompt={row.payload.prompt} />
      <h4>Response</h4>
      <pre class="json">
        {typeof row.payload.response === 'string'
          ? row.payload.response
          : JSON.stringify(row.payload.response, null, 2)}
      </pre>
    </>
  );
}

function PromptView({ prompt }: { prompt: unknown }) {
  const messages = Array.isArray(prompt)
    ? prompt
    : prompt && typeof prompt === 'object' && Array.isArray((prompt as { messages?: unknown }).messages)
      ? (prompt as { messages: unknown[] }).messages
      : null;
  if (messages?.every((m) => m && typeof m === 'object' && 'role' in m)) {
    return (
      <ol class="prompt" aria-label="Prompt messages">
        {messages.map((m, i) => {
          const msg = m as { role: string; content: unknown };
          return (
            <li key={i} class={`prompt-msg role-${msg.role}`}>
              <span class="prompt-role">{msg.role}</span>
              <pre>
                {typeof msg.content === 'string' ? msg.content : JSON.stringify(msg.content, null, 2)}
              </pre>
            </li>
          );
        })}
      </ol>
    );
  }
  return <pre class="json">{typeof prompt === 'string' ? prompt : JSON.stringify(prompt, null, 2)}</pre>;
}
