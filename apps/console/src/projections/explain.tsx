import type { ComponentChildren } from 'preact';
import { type ApiError, isMissingRoute } from '../api.js';

/** Advice for the projections admin API's refusals (issue 10 contract E). */
export function explainProjectionsError(error: ApiError): ComponentChildren | null {
  if (error.code === 'PERMISSION_REQUIRED' || error.code === 'FORBIDDEN') {
    return (
      <p>
        Projections are deployment-wide (every tenant's read models), so they take operator scopes: seeing
        them needs <code>projections.read</code> (permission <code>projection:read</code>), starting a rebuild
        needs <code>projections.admin</code> (permission <code>projection:rebuild</code>). Sign in with a key
        or token that has them.
      </p>
    );
  }
  if (error.code === 'QUEUE_UNAVAILABLE') {
    return (
      <p>
        The worker is not running (its rebuild queue does not exist yet): start it (<code>parley start</code>{' '}
        runs one, or <code>parley worker</code>), then try again.
      </p>
    );
  }
  if (isMissingRoute(error)) {
    return <p>This server does not offer the projections API yet (an older Parley): upgrade the server.</p>;
  }
  if (error.code === 'PROJECTION_NOT_FOUND') {
    return <p>This projection is not registered in this deployment any more: refresh the list.</p>;
  }
  return null;
}
