import { type Api, isMissingRoute, loadAllPages } from '../api.js';
import { formatUtc } from '../charts/format.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { useApiData } from '../components/useApiData.js';
import { DASH, formatClock } from './format.js';
import type { Message, MessagesPage } from './types.js';

const PAGE = 200;
const MAX_PAGES = 25;

export async function loadMessages(
  api: Api,
  projectId: string,
  sessionId: string,
  signal: AbortSignal,
): Promise<{ messages: Message[]; total: number; truncated: boolean }> {
  const { rows, last, truncated } = await loadAllPages(
    (offset) =>
      api.get<MessagesPage>(
        `/api/projects/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(sessionId)}/messages`,
        { limit: PAGE, offset },
        { signal },
      ),
    (answer) => answer.messages,
    MAX_PAGES,
  );
  return { messages: rows, total: last?.pagination.total ?? 0, truncated };
}

/** The session's transcript as chat bubbles: the user on the right, the agent on the left. */
export function Conversation({
  api,
  projectId,
  sessionId,
}: {
  api: Api;
  projectId: string;
  sessionId: string;
}) {
  const result = useApiData(`${projectId}|${sessionId}`, (signal) =>
    loadMessages(api, projectId, sessionId, signal),
  );
  return (
    <section class="panel conversation" aria-labelledby="conv-title">
      <div class="panel-head">
        <h2 id="conv-title">Conversation</h2>
        {result.data ? <span class="muted">{result.data.total} messages</span> : null}
      </div>
      {result.loading && !result.data ? <p class="muted">Loading the transcript…</p> : null}
      {result.error ? (
        isMissingRoute(result.error) ? (
          <p class="muted">
            This server does not offer the transcript API yet (GET …/sessions/&#123;id&#125;/messages).
          </p>
        ) : (
          <ErrorBox error={result.error} what="Loading the transcript" />
        )
      ) : null}
      {result.data && result.data.messages.length === 0 ? (
        <p class="muted">No message was recorded in this session.</p>
      ) : null}
      {result.data && result.data.messages.length > 0 ? (
        <ol class="bubbles" aria-label="Conversation">
          {result.data.messages.map((m) => (
            <li key={m.messageId} class={`bubble-row ${m.role === 'user' ? 'from-user' : 'from-agent'}`}>
              <div class="bubble">
                <div class="bubble-meta">
                  <span class="bubble-who">{m.role === 'user' ? 'User' : (m.agentName ?? 'Agent')}</span>
                  <time dateTime={m.at} title={formatUtc(m.at, true, DASH)}>
                    {formatClock(m.at)}
                  </time>
                  {m.usedFallback ? <span class="tag warn">fallback</span> : null}
                </div>
                <div class="bubble-text">{m.text}</div>
              </div>
            </li>
          ))}
        </ol>
      ) : null}
      {result.data?.truncated ? (
        <p class="help">Showing the first {result.data.messages.length} messages.</p>
      ) : null}
    </section>
  );
}
