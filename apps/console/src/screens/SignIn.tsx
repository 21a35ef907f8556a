import { useState } from 'preact/hooks';
import { ApiError, createApi, type Me } from '../api.js';
import { type Credential, type CredentialKind, guessKind } from '../credential.js';

interface Props {
  onSignedIn(credential: Credential, me: Me): void;
  notice?: string | null;
}

/**
 * Sign in with a platform API key (`plat_…`) or a user JWT. The secret is checked against
 * GET /api/v1/me and kept in this tab's sessionStorage only; the form never submits to a URL.
 */
export function SignIn({ onSignedIn, notice }: Props) {
  const [secret, setSecret] = useState('');
  const [kind, setKind] = useState<CredentialKind | 'auto'>('auto');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const value = secret.trim();
    if (!value) {
      setError('Paste a platform API key or a user JWT.');
      return;
    }
    const credential: Credential = { kind: kind === 'auto' ? guessKind(value) : kind, secret: value };
    setBusy(true);
    setError(null);
    try {
      const me = await createApi(credential, () => {}).get<Me>('/api/v1/me');
      onSignedIn(credential, me);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'That credential was not accepted (unknown, expired or revoked).'
          : err instanceof ApiError
            ? `${err.message}${err.code ? ` (${err.code})` : ''}`
            : 'The server could not be reached.',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="signin">
      <h1>Parley console</h1>
      <p>Sign in with a platform API key or a user JWT. It stays in this browser tab only.</p>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <form onSubmit={submit} autocomplete="off" novalidate>
        <label for="secret">API key or JWT</label>
        <input
          id="secret"
          name="secret"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={secret}
          onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
          aria-describedby="secret-help"
          aria-invalid={error ? 'true' : 'false'}
        />
        <p id="secret-help" class="help">
          A key from <code>npx parley keys create</code> (the demo's console key is in{' '}
          <code>.parley/console-key</code>), or a JWT from your identity provider.
        </p>
        <fieldset>
          <legend>Credential type</legend>
          {(['auto', 'api_key', 'user_jwt'] as const).map((k) => (
            <label key={k} class="inline">
              <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
              {k === 'auto' ? 'Detect' : k === 'api_key' ? 'Platform API key' : 'User JWT'}
            </label>
          ))}
        </fieldset>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
