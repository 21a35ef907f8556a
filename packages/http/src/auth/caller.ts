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
  /** Always a tenant that exists (a JWT's `tenant_id` is checked); the rate limit counts against it. */
  tenantId: string;
  /**
   * Projects the caller reaches, all of `tenantId`: one for a key or an SDK token; for a JWT, those
   * of its `project_ids` that belong to its tenant (createJwtVerifier drops the others).
   */
  projectIds: readonly string[];
  permissions: readonly string[];
  /** The scopes granted (a key's scopes, a JWT's `scope` claim split); absent for an SDK token. */
  scopes?: readonly string[] | undefined;
  /** SDK token only: the SDK channel it was minted for, when it names one. */
  channelId?: string | undefined;
  /** SDK token only: the browser origin it was minted for (claim `origin`), when it names one. */
  origin?: string | undefined;
}

/**
 * Why a JWT was refused: 401 for all but `no_tenant` (no `tenant_id` claim) and `unknown_tenant` (a
 * `tenant_id` that names no tenant), which are authentic tokens without a tenant context: 403
 * TENANT_CONTEXT_REQUIRED (spec 001 §7).
 */
export type VerifyJwtFailureReason =
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'claims'
  | 'unavailable'
  | 'no_tenant'
  | 'unknown_tenant';

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
