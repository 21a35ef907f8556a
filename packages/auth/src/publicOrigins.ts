import { validationError } from './errors.js';

/** At most this many origins per public key: a widget lives on a few sites, not hundreds. */
export const MAX_ALLOWED_ORIGINS = 50;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * One allowed origin as a browser serializes it in the `Origin` header
 * (`scheme://host[:port]`, lowercase host, default port dropped), or null when
 * it is not one: not a URL, a path, query, fragment or credentials, a scheme
 * other than https (http only for localhost, 127.0.0.1 and [::1]). A trailing
 * `/` alone is tolerated (`https://shop.example.com/` is that origin).
 */
export function normalizeOrigin(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > 2048 || /\s/.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  if (url.pathname !== '/' || trimmed.endsWith('?') || trimmed.endsWith('#')) return null;
  // `https://a.com/` and `https://a.com` are the same origin; `https://a.com//` is a path.
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(trimmed)) return null;
  // Hosts as DNS names (punycode) or IP literals only: no wildcards or other characters URL lets through.
  if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)) return null;
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)) return url.origin;
  return null;
}

/** Normalized, deduplicated in the order given; at least one, at most MAX_ALLOWED_ORIGINS (else 400). */
export function checkAllowedOrigins(values: readonly string[]): string[] {
  const bad = values.filter((v) => normalizeOrigin(v) === null);
  if (bad.length > 0) {
    throw validationError(
      `not an allowed origin: ${bad.map((b) => JSON.stringify(b)).join(', ')}; ` +
        'give scheme://host[:port] with no path, https (http only for localhost)',
      { invalid: bad },
    );
  }
  const origins = [...new Set(values.map((v) => normalizeOrigin(v) as string))];
  if (origins.length === 0) throw validationError('at least one allowed origin is required');
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    throw validationError(`at most ${MAX_ALLOWED_ORIGINS} allowed origins per public key`);
  }
  return origins;
}
