import { ParleyError } from '@parley/platform';

/**
 * Errors of the auth store, as ParleyErrors (code, HTTP status) so the HTTP
 * layer maps them like any other and the CLI turns 4xx ones into usage errors.
 */
export const validationError = (message: string, details?: Record<string, unknown>) =>
  new ParleyError('VALIDATION_ERROR', 400, message, details ? { details } : undefined);

export const tenantNotFound = (tenantId: string) =>
  new ParleyError('TENANT_NOT_FOUND', 404, `no tenant ${tenantId}`);

export const projectNotFound = (project: string) =>
  new ParleyError('PROJECT_NOT_FOUND', 404, `no project ${project}`);

export const projectSlugTaken = (tenantId: string, slug: string) =>
  new ParleyError('PROJECT_SLUG_TAKEN', 409, `tenant ${tenantId} already has a project with slug ${slug}`);

export const projectAmbiguous = (slug: string, count: number) =>
  new ParleyError(
    'PROJECT_AMBIGUOUS',
    400,
    `slug ${slug} names projects in ${count} tenants; use the project id or give the tenant`,
  );

/** PostgreSQL error codes we translate. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';

export function pgErrorCode(err: unknown): { code?: string; constraint?: string } {
  if (typeof err !== 'object' || err === null) return {};
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  return {
    code: typeof code === 'string' ? code : undefined,
    constraint: typeof constraint === 'string' ? constraint : undefined,
  };
}
