import type { TraceEvent } from './types.js';

/**
 * What the trace says about an agent's actions, in words: tool calls and their outcomes, handoffs,
 * decisions and guardrail evaluations (the events the turn engine records, docs/agents.md "The
 * turn"). Pure, so the screen and its tests read the same.
 */

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** `email 1, card 2` from a guardrail's finding counts. */
function findings(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const parts = Object.entries(value as Record<string, unknown>)
    .filter(([, n]) => typeof n === 'number' && n > 0)
    .map(([kind, n]) => `${kind} ${n}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** A short line for the waterfall next to the span's name; null when there is nothing to add. */
export function spanSummary(e: TraceEvent): string | null {
  const a = e.attributes ?? {};
  switch (e.eventType) {
    case 'tool_call': {
      if (a.suspended === true) return 'suspended: waiting for its callback';
      const kind = str(a.kind);
      const outcome = e.status === 'error' ? 'failed' : 'ok';
      const http = num(a.statusCode) === undefined ? '' : ` · HTTP ${num(a.statusCode)}`;
      return `${kind === undefined ? '' : `${kind} tool · `}${outcome}${http}`;
    }
    case 'tool_result':
      return e.status === 'error' ? `error: ${str(a.code) ?? 'failed'}` : 'result';
    case 'handoff': {
      const route = `${str(a.from) ?? '?'} → ${str(a.to) ?? e.name ?? '?'}`;
      const remote = a.target === 'remote' ? ' (remote, A2A)' : '';
      return e.status === 'error'
        ? `${route}${remote} failed: ${str(a.code) ?? 'error'}`
        : `${route}${remote}`;
    }
    case 'decision':
      return e.decisionKind === null ? null : `${e.decisionKind}${str(a.reason) ? `: ${str(a.reason)}` : ''}`;
    case 'guardrail_eval': {
      const stage = str(a.stage);
      const verdict = e.status === 'blocked' ? 'blocked' : 'passed';
      const found = findings(a.findings);
      const action = str(a.action);
      const detail =
        found !== undefined
          ? ` · found ${found}${action ? ` (${action})` : ''}`
          : num(a.limit) !== undefined
            ? ` · ${num(a.length)} of ${num(a.limit)} characters`
            : str(a.verdict) !== undefined
              ? ` · verdict ${str(a.verdict)}`
              : '';
      return `${stage === undefined ? '' : `${stage} · `}${verdict}${detail}`;
    }
    case 'state_change':
      // A voice call's lifecycle status (docs/traces.md "Voice calls"): the status and the call.
      if (e.name === 'voice_call_status' && str(a.to) !== undefined)
        return `${str(a.to)}${str(a.callId) === undefined ? '' : ` · call ${str(a.callId)}`}`;
      return null;
    default:
      return null;
  }
}

/** The labelled fields of an agent action, for the span's detail panel; empty for other events. */
export function agentDetails(e: TraceEvent): Array<[string, string]> {
  const a = e.attributes ?? {};
  const rows: Array<[string, string | undefined]> = [];
  switch (e.eventType) {
    case 'tool_call':
      rows.push(
        ['Tool', e.name ?? undefined],
        ['Kind', str(a.kind)],
        ['Outcome', e.status === 'error' ? 'failed' : a.suspended === true ? 'suspended' : 'succeeded'],
        ['Agent', str(a.agent)],
        ['HTTP status', num(a.statusCode)?.toString()],
        ['Attempts', num(a.attempts)?.toString()],
        ['Suspension', str(a.suspensionId)],
        ['Arguments', str(a.arguments)],
      );
      break;
    case 'tool_result':
      rows.push(
        ['Tool', e.name ?? undefined],
        ['Result', str(a.result)],
        ['Error', str(a.code)],
        ['Message', str(a.message)],
      );
      break;
    case 'handoff':
      rows.push(
        ['From', str(a.from)],
        ['To', str(a.to) ?? e.name ?? undefined],
        ['Target', str(a.target)],
        ['Outcome', e.status === 'error' ? `failed (${str(a.code) ?? 'error'})` : 'handed off'],
      );
      break;
    case 'decision':
      rows.push(
        ['Decision', e.decisionKind ?? undefined],
        ['Choice', e.name ?? undefined],
        ['Reason', str(a.reason)],
      );
      break;
    case 'guardrail_eval':
      rows.push(
        ['Guardrail', e.name ?? undefined],
        ['Stage', str(a.stage)],
        ['Result', e.status === 'blocked' ? 'blocked' : 'passed'],
        ['Found', findings(a.findings)],
        ['Action', str(a.action)],
        ['Verdict', str(a.verdict)],
        ['Model', str(a.model)],
        ['Length', num(a.limit) === undefined ? undefined : `${num(a.length)} of ${num(a.limit)}`],
      );
      break;
    default:
      break;
  }
  return rows.filter((row): row is [string, string] => row[1] !== undefined);
}
