import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes, so the API serves one index.html and the address bar holds only ids and filters
 * (never a credential or a media URL):
 *   #/p/{projectId}/sessions?…filters   #/p/{projectId}/sessions/{sessionId}
 *   #/p/{projectId}/ledger?…filters     #/projections
 */
export type Route =
  | { name: 'home' }
  | { name: 'sessions'; projectId: string; query: URLSearchParams }
  | { name: 'session'; projectId: string; sessionId: string; query: URLSearchParams }
  | { name: 'ledger'; projectId: string; query: URLSearchParams }
  | { name: 'projections'; query: URLSearchParams }
  | { name: 'not_found'; path: string };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [pathPart = '/', search = ''] = raw.split('?', 2);
  const query = new URLSearchParams(search);
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { name: 'home' };
  if (parts[0] === 'projections' && parts.length === 1) return { name: 'projections', query };
  if (parts[0] === 'p' && parts[1]) {
    const projectId = parts[1];
    if (parts[2] === 'sessions' && parts.length === 3) return { name: 'sessions', projectId, query };
    if (parts[2] === 'sessions' && parts[3] && parts.length === 4) {
      return { name: 'session', projectId, sessionId: parts[3], query };
    }
    if (parts[2] === 'ledger' && parts.length === 3) return { name: 'ledger', projectId, query };
  }
  return { name: 'not_found', path: pathPart };
}

/** `#/p/proj_1/sessions?status=ended`: path segments encoded, empty query values left out. */
export function href(segments: readonly string[], query?: URLSearchParams | Record<string, string>): string {
  const path = `/${segments.map(encodeURIComponent).join('/')}`;
  const params = query instanceof URLSearchParams ? query : new URLSearchParams(query ?? {});
  for (const [k, v] of [...params.entries()]) if (v === '') params.delete(k);
  const s = params.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onChange);
    window.addEventListener('popstate', onChange);
    return () => {
      window.removeEventListener('hashchange', onChange);
      window.removeEventListener('popstate', onChange);
    };
  }, []);
  return route;
}
