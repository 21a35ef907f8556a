import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Me } from './api.js';

export interface Session {
  api: Api;
  me: Me;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in API client and identity; screens render only inside a signed-in shell. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in shell');
  return session;
}
