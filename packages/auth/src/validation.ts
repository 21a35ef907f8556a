import { validationError } from './errors.js';
import { isScope, SCOPE_NAMES, type Scope } from './scopes.js';
import { ENVIRONMENT_NAMES, type EnvironmentName } from './types.js';

/**
 * Slugs: lowercase letters, digits and inner hyphens, 1 to 63 characters. No
 * underscore, so a slug can never be mistaken for a `proj_…` id.
 */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function checkSlug(slug: string): string {
  if (!SLUG.test(slug)) {
    throw validationError(
      `slug ${JSON.stringify(slug)} must be 1 to 63 lowercase letters, digits or inner hyphens`,
    );
  }
  return slug;
}

export function checkName(what: string, name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200)
    throw validationError(`${what} must be 1 to 200 characters`);
  return trimmed;
}

/** Known scopes only, at least one, deduplicated in the order given. */
export function checkScopes(scopes: readonly string[]): Scope[] {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw validationError(`unknown scope ${unknown.join(', ')}; known: ${SCOPE_NAMES.join(', ')}`, {
      unknown,
    });
  }
  if (scopes.length === 0)
    throw validationError(`at least one scope is required (${SCOPE_NAMES.join(', ')})`);
  return [...new Set(scopes as Scope[])];
}

export function checkEnvironments(names: readonly string[]): EnvironmentName[] {
  const known = new Set<string>(ENVIRONMENT_NAMES);
  const bad = names.filter((n) => !known.has(n));
  if (bad.length > 0) {
    throw validationError(`unknown environment ${bad.join(', ')}; known: ${ENVIRONMENT_NAMES.join(', ')}`);
  }
  // Canonical order, whatever order was given.
  return ENVIRONMENT_NAMES.filter((n) => names.includes(n));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
