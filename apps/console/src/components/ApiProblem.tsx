import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.js';

/**
 * An API failure as the operator needs it: what went wrong, the stable code and the request id (to
 * find the server log line). Never the credential: ApiError holds only the response. `explain`
 * turns known codes into advice; its answer is shown above the server's message.
 */
export function ApiProblem({
  error,
  title = 'The request failed',
  explain,
  children,
}: {
  error: unknown;
  title?: string;
  explain?: (error: ApiError) => ComponentChildren | null;
  children?: ComponentChildren;
}) {
  if (!(error instanceof ApiError)) {
    const message = error instanceof Error ? error.message : String(error);
    return (
      <div class="problem" role="alert">
        <strong>{title}</strong>
        <p>{message || 'Network error: the server could not be reached.'}</p>
        {children}
      </div>
    );
  }
  const advice = explain?.(error) ?? null;
  return (
    <div class="problem" role="alert">
      <strong>{title}</strong>
      {advice ? <div class="problem-advice">{advice}</div> : null}
      <p>{error.message}</p>
      <p class="problem-meta">
        HTTP {error.status}
        {error.code ? (
          <>
            {' · code '}
            <code>{error.code}</code>
          </>
        ) : null}
        {error.requestId ? (
          <>
            {' · request id '}
            <code>{error.requestId}</code>
          </>
        ) : null}
      </p>
      {children}
    </div>
  );
}
