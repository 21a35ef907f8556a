/**
 * Who is calling, whatever the credential: a platform API key (bound to one
 * project), a user's JWT bearer token (a tenant and the projects it names) or,
 * on the conversation endpoints only, an SDK session token (one project, an
 * end user). Set on `request.caller` by requireCaller.
 */
export interface Caller {
  kind: 'apiKey' | 'jwt' | 'sdkToken';
  /**
   * The key id (`key_…`) or the token's `sub` (for an SDK token: the end user or anonymous visitor);
   * for logs and audit, never a secret.
   */
  subject: string;
  tenantId: string;
  /** Projects the caller reaches: one for a key or an SDK token, the token's `project_ids` for a JWT. */
  projectIds: readonly string[];
  permissions: readonly string[];
  /** The scopes granted (a key's scopes, a JWT's `scope` claim split); absent for an SDK token. */
  scopes?: readonly string[] | undefined;
  /** SDK token only: the SDK channel it was minted for, when it names one. */
  channelId?: string | undefined;
  /** SDK token only: the browser origin it was minted for (claim `origin`), when it names one. */
  origin?: string | undefined;
}

export type VerifyJwtFailureReason = 'malformed' | 'signature' | 'expired' | 'claims' | 'unavailable';

export type VerifyJwtResult =
  | { ok: true; caller: Omit<Caller, 'kind'> }
  | { ok: false; reason: VerifyJwtFailureReason };

/** Checks a compact JWS (`eyJ…`); createJwtVerifier is the implementation. */
export type VerifyJwt = (token: string) => Promise<VerifyJwtResult>;

/** Whether the caller may act on the project; a miss is answered 404 PROJECT_NOT_FOUND. */
export function callerReaches(caller: Caller, projectId: string): boolean {
  return caller.projectIds.includes(projectId);
}

/** The project a request that names none acts on: the caller's only project, if it reaches exactly one. */
export function callerSoleProject(caller: Caller): string | undefined {
  return caller.projectIds.length === 1 ? caller.projectIds[0] : undefined;
}
