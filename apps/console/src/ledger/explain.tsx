import type { ComponentChildren } from 'preact';
import { type ApiError, isMissingRoute } from '../api.js';

/** Advice for the analytics API's refusals (docs/api.md "Errors"). */
export function explainAnalyticsError(error: ApiError): ComponentChildren | null {
  if (error.code === 'PLATFORM_API_KEY_REQUIRED' || error.status === 401) {
    return (
      <p>
        The ledger reads the public analytics API, which accepts only a <strong>platform API key</strong> (
        <code>plat_…</code>) bound to this project with the scope <code>analytics.read</code>. A user token
        (JWT) is refused. Sign out and sign in with such a key (
        <code>parley keys create --project … --scope analytics.read</code>).
      </p>
    );
  }
  if (error.code === 'PERMISSION_REQUIRED') {
    return (
      <p>
        This key lacks the permission <code>llm_ledger:read</code>: it needs the scope{' '}
        <code>analytics.read</code>.
      </p>
    );
  }
  if (error.code === 'PROJECT_NOT_FOUND') {
    return <p>This key is not bound to this project: pick another project or sign in with its key.</p>;
  }
  if (isMissingRoute(error)) {
    return <p>This server does not offer this API yet (an older Parley): upgrade the server.</p>;
  }
  if (error.code === 'RATE_LIMIT_EXCEEDED') {
    return <p>The tenant's request rate is exceeded: wait a moment, then refresh.</p>;
  }
  return null;
}
