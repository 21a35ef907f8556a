import { ApiError } from '../api.js';

/**
 * An API failure as the operator needs it: what failed, the error code and HTTP status, and the
 * request id to find it in the server's logs. Never the credential (the client never puts it in an
 * error) and never a media URL.
 */
export function ErrorBox({
  error,
  what,
  children,
}: {
  error: unknown;
  what?: string;
  children?: preact.ComponentChildren;
}) {
  const api = error instanceof ApiError ? error : null;
  const message = api ? api.message : error instanceof Error ? error.message : String(error);
  return (
    <div class="errorbox" role="alert">
      <strong>{what ? `${what} failed` : 'Request failed'}</strong>
      {api ? (
        <span class="errorbox-code">
          {api.code ?? 'HTTP'} · {api.status}
        </span>
      ) : null}
      <div class="errorbox-message">{message}</div>
      {api?.requestId ? (
        <div class="errorbox-request">
          Request id <code>{api.requestId}</code>
        </div>
      ) : null}
      {children}
    </div>
  );
}
