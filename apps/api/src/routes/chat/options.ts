import type { SessionLimits, VerifyApiKey, VerifyJwt, VerifySdkToken } from '@parley/http';
import type { Runtime } from '@parley/runtime';

/** Where a session lives, read from its stream (every session event carries the project). */
export interface SessionScope {
  projectId: string;
  tenantId?: string | undefined;
  /** The end user who started it (SessionStarted's channelUserId): an SDK token reaches only its own sessions. */
  channelUserId?: string | undefined;
}

export interface ChatRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** Absent (no JWT_SECRET nor JWT_JWKS_URL): a JWT bearer token is answered 401. */
  verifyJwt?: VerifyJwt | undefined;
  /** Absent (no SDK_TOKEN_SECRET): an `X-SDK-Token` is answered 401. */
  verifySdkToken?: VerifySdkToken | undefined;
  runtime: Pick<Runtime, 'runTurn' | 'endSession'>;
  /** The project of a session, for JWT callers reaching several projects; null when it has no events. */
  sessionScope(sessionId: string): Promise<SessionScope | null>;
  limits: SessionLimits;
  /** Interval of the `: heartbeat` comment on chat/stream (default 15 s, spec 000 §8). */
  heartbeatMs?: number;
}
