/**
 * The signed-in credential. Kept in sessionStorage only: it lives as long as the tab, never in the
 * URL, never in localStorage, never sent anywhere but this origin's API.
 */
export type CredentialKind = 'api_key' | 'user_jwt';

export interface Credential {
  kind: CredentialKind;
  secret: string;
}

const KEY = 'parley.console.credential';

export function loadCredential(): Credential | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Credential>;
    if ((parsed.kind === 'api_key' || parsed.kind === 'user_jwt') && typeof parsed.secret === 'string') {
      return { kind: parsed.kind, secret: parsed.secret };
    }
  } catch {
    // Storage unavailable or corrupt: sign in again.
  }
  return null;
}

export function saveCredential(credential: Credential): void {
  sessionStorage.setItem(KEY, JSON.stringify(credential));
}

export function clearCredential(): void {
  sessionStorage.removeItem(KEY);
}

/** What the sign-in form infers from the pasted secret; the user can still choose. */
export function guessKind(secret: string): CredentialKind {
  return secret.trim().startsWith('plat_') ? 'api_key' : 'user_jwt';
}
