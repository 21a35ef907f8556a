import type { GetMeResponse } from './apiTypes.generated.js';
import type { Credential } from './credential.js';

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export type Query = Record<string, QueryValue>;

/** The read model's freshness of a page (docs/api.md "The freshness field"). */
export interface Freshness {
  position: string | null;
  recordedAt: string | null;
}

/** An answer that was not 2xx, with the spec's envelope fields when the body had them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
    readonly body: unknown,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The credential kind cannot call this API (the analytics and recordings APIs take keys only). */
  get needsApiKey(): boolean {
    return this.code === 'PLATFORM_API_KEY_REQUIRED' || this.status === 401;
  }
}

/** Builds `?a=1&b=x&b=y`: arrays repeat the parameter, empty values are left out. */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) {
      for (const v of value) if (v !== '') params.append(name, v);
    } else {
      params.append(name, String(value));
    }
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** True when the server has no such route yet (a console newer than its API): a plain 404. */
export function isMissingRoute(error: unknown): boolean {
  return (
    error instanceof ApiError && error.status === 404 && (error.code === null || error.code === 'NOT_FOUND')
  );
}

function describe(status: number, body: unknown): { code: string | null; message: string } {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const error = b.error;
    if (error && typeof error === 'object') {
      const e = error as Record<string, unknown>;
      return {
        code: typeof e.code === 'string' ? e.code : null,
        message: typeof e.message === 'string' ? e.message : `HTTP ${status}`,
      };
    }
    if (typeof error === 'string') return { code: null, message: error };
    if (typeof b.message === 'string') return { code: null, message: b.message };
  }
  return { code: null, message: `HTTP ${status}` };
}

export interface Api {
  readonly credential: Credential;
  get<T>(path: string, query?: Query, init?: { signal?: AbortSignal }): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

/**
 * The console's only way to the server: Parley's public and project APIs, same origin. Platform
 * keys go in `x-api-key` (accepted by every API the console calls), user JWTs as a bearer.
 */
export function createApi(credential: Credential, onUnauthorized: () => void): Api {
  const headers = (): Record<string, string> =>
    credential.kind === 'api_key'
      ? { 'x-api-key': credential.secret, accept: 'application/json' }
      : { authorization: `Bearer ${credential.secret}`, accept: 'application/json' };

  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(path, {
      method,
      headers: body === undefined ? headers() : { ...headers(), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      credentials: 'omit',
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (!response.ok) {
      const { code, message } = describe(response.status, parsed);
      if (response.status === 401 && path === '/api/v1/me') onUnauthorized();
      throw new ApiError(response.status, code, message, parsed, response.headers.get('x-request-id'));
    }
    return parsed as T;
  }

  return {
    credential,
    get: (path, query, init) => call('GET', `${path}${queryString(query)}`, undefined, init?.signal),
    post: (path, body) => call('POST', path, body ?? {}),
  };
}

/** What GET /api/v1/me answers. */
export type Me = GetMeResponse;

/**
 * Every row of an offset-paged list, page after page while `hasMore` (at most `maxPages` pages:
 * `truncated` then says there were more). The last page's envelope comes back too (totals).
 */
export async function loadAllPages<P extends { hasMore: boolean }, T>(
  fetchPage: (offset: number) => Promise<P>,
  rowsOf: (page: P) => readonly T[],
  maxPages: number,
): Promise<{ rows: T[]; last: P | null; truncated: boolean }> {
  const rows: T[] = [];
  let last: P | null = null;
  for (let page = 0; page < maxPages; page++) {
    last = await fetchPage(rows.length);
    const got = rowsOf(last);
    rows.push(...got);
    if (!last.hasMore || got.length === 0) return { rows, last, truncated: false };
  }
  return { rows, last, truncated: true };
}
