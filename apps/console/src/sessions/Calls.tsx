import { formatInt, formatUtc } from '../charts/format.js';
import type { ApiData } from '../components/useApiData.js';
import { DASH, formatMs, formatPct } from './format.js';
import type { SessionMetrics, VoiceCall } from './types.js';
import { Badge } from './ui.js';

/** Roots that are turns: a voice call's status and metrics events are not (docs/traces.md). */
export const turnCount = (roots: ReadonlyArray<{ eventType: string; name: string | null }>): number =>
  roots.filter(
    (r) => !(r.eventType === 'state_change' && (r.name === 'voice_call_status' || r.name === 'voice_call')),
  ).length;

function CallRow({ call }: { call: VoiceCall }) {
  return (
    <tr>
      <th scope="row">
        <code>{call.callId}</code>
      </th>
      <td>
        <Badge value={call.status} />
      </td>
      <td>
        <ol class="call-statuses" aria-label={`Statuses of call ${call.callId}`}>
          {call.statuses.map((s) => (
            <li key={`${s.status}-${s.at}`}>
              {s.status} <span class="muted">{formatUtc(s.at, true, DASH)}</span>
            </li>
          ))}
        </ol>
      </td>
      <td>{call.durationMs === null ? DASH : formatMs(call.durationMs)}</td>
      <td>{call.firstResponseTimeMs === null ? DASH : formatMs(call.firstResponseTimeMs)}</td>
      <td>{formatInt(call.turnCount, DASH)}</td>
      <td>{call.bargeInRate === null ? DASH : formatPct(call.bargeInRate)}</td>
    </tr>
  );
}

/**
 * The session's voice calls (GET …/metrics `voiceCalls`): each call's lifecycle statuses as the
 * provider or the voice gateway reported them, its duration and the pipeline's voice metrics.
 * Nothing is shown for a session without calls.
 */
export function CallsPanel({ metrics }: { metrics: ApiData<SessionMetrics> }) {
  const calls = metrics.data?.voiceCalls ?? [];
  if (calls.length === 0) return null;
  return (
    <section class="panel calls" aria-labelledby="calls-title">
      <h2 id="calls-title">Calls</h2>
      <div class="table-wrap">
        <table aria-label="Voice calls">
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">Status</th>
              <th scope="col">Lifecycle</th>
              <th scope="col">Duration</th>
              <th scope="col">First response</th>
              <th scope="col">Turns</th>
              <th scope="col">Barge-in</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((call) => (
              <CallRow key={call.callId} call={call} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
