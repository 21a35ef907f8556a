import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApi, type Me } from './api.js';
import { SessionContext } from './context.js';
import { type Credential, clearCredential, loadCredential, saveCredential } from './credential.js';
import { href, navigate, type Route, useRoute } from './router.js';
import { Ledger } from './screens/Ledger.js';
import { Projections } from './screens/Projections.js';
import { SessionDetail } from './screens/SessionDetail.js';
import { Sessions } from './screens/Sessions.js';
import { SignIn } from './screens/SignIn.js';

export function App() {
  const [credential, setCredential] = useState<Credential | null>(() => loadCredential());
  const [me, setMe] = useState<Me | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();

  const signOut = (message: string | null = null) => {
    clearCredential();
    setCredential(null);
    setMe(null);
    setNotice(message);
  };
  const api = useMemo(
    () =>
      credential ? createApi(credential, () => signOut('Your credential is no longer accepted.')) : null,
    [credential],
  );

  // A credential restored from sessionStorage is checked again before anything is shown.
  useEffect(() => {
    if (!api || me) return;
    api.get<Me>('/api/v1/me').then(setMe, (err) => {
      signOut(err instanceof ApiError && err.status === 401 ? 'Please sign in again.' : 'Sign-in failed.');
    });
  }, [api, me]);

  if (!credential || !api) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(c, m) => {
          saveCredential(c);
          setCredential(c);
          setMe(m);
          setNotice(null);
        }}
      />
    );
  }
  if (!me) return <p class="loading">Signing in…</p>;
  return (
    <SessionContext.Provider value={{ api, me, signOut: () => signOut() }}>
      <Shell route={route} me={me} onSignOut={() => signOut()} />
    </SessionContext.Provider>
  );
}

function currentProject(route: Route, me: Me): string | null {
  if ('projectId' in route) return route.projectId;
  return me.projects[0]?.id ?? null;
}

function Shell({ route, me, onSignOut }: { route: Route; me: Me; onSignOut(): void }) {
  const projectId = currentProject(route, me);
  useEffect(() => {
    if (route.name === 'home') {
      navigate(projectId ? href(['p', projectId, 'sessions']) : href(['projections']), { replace: true });
    }
  }, [route.name, projectId]);

  const tab = route.name === 'session' ? 'sessions' : route.name;
  const link = (name: 'sessions' | 'ledger', label: string) =>
    projectId ? (
      <a href={href(['p', projectId, name])} aria-current={tab === name ? 'page' : undefined}>
        {label}
      </a>
    ) : null;
  return (
    <>
      {/* A button, not an anchor: "#main" would be read as a route by the hash router. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <span class="brand">Parley console</span>
        <nav aria-label="Screens">
          {link('sessions', 'Sessions')}
          {link('ledger', 'Ledger')}
          <a href={href(['projections'])} aria-current={tab === 'projections' ? 'page' : undefined}>
            Projections
          </a>
        </nav>
        {me.projects.length > 0 ? (
          <label class="project-picker">
            Project{' '}
            <select
              value={projectId ?? ''}
              onChange={(e) => navigate(href(['p', (e.target as HTMLSelectElement).value, 'sessions']))}
            >
              {me.projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name ?? p.slug ?? p.id}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <span class="who" title={me.scopes.join(' ')}>
          {me.credential.kind === 'api_key'
            ? `key ${me.credential.name ?? me.credential.id ?? ''}`
            : me.credential.subject}
        </span>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Screen route={route} />
      </main>
    </>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'home':
      return null;
    case 'sessions':
      return <Sessions projectId={route.projectId} query={route.query} />;
    case 'session':
      return <SessionDetail projectId={route.projectId} sessionId={route.sessionId} query={route.query} />;
    case 'ledger':
      return <Ledger projectId={route.projectId} query={route.query} />;
    case 'projections':
      return <Projections query={route.query} />;
    case 'not_found':
      return (
        <section>
          <h1>Not found</h1>
          <p>No screen at {route.path}.</p>
        </section>
      );
    default: {
      const never: never = route;
      return never;
    }
  }
}
