import { type AuthStore, expandScopes } from '@parley/auth';
import {
  createExecutionQueue,
  createJwtVerifier,
  createSdkTokens,
  sessionLimitsFromConfig,
  type VerifyJwt,
} from '@parley/http';
import { type ProcessDependencies, runtimeOf } from '@parley/process-services';
import type { Runtime } from '@parley/runtime';
import { type ChatRouteOptions, sessionScopeFromLog, withExecutionQueue } from '../routes/chat/index.js';

/**
 * User JWT bearer verification as configured (JWT_SECRET and/or JWT_JWKS_URL); undefined when
 * neither is set. The token's tenant and projects are checked against the auth store.
 */
export function jwtVerifierOf(system: ProcessDependencies, auth: AuthStore): VerifyJwt | undefined {
  const { config } = system;
  if (config.JWT_SECRET === undefined && config.JWT_JWKS_URL === undefined) return undefined;
  return createJwtVerifier({
    secret: config.JWT_SECRET,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    expandScopes,
    tenantProjects: auth.tenantProjects,
  });
}

/** The conversation endpoints' services: runtime, credentials, session limits (Redis when REDIS_URL is set). */
export function chatServices(
  system: ProcessDependencies,
  auth: AuthStore,
  verifyJwt: VerifyJwt | undefined,
): { options: ChatRouteOptions; runtime: Runtime; close(): Promise<void> } {
  const limits = sessionLimitsFromConfig(system.config, system.logger);
  // Every turn of the API process goes through the execution queue (429 QUEUE_FULL when full).
  const runtime = withExecutionQueue(
    runtimeOf(system),
    createExecutionQueue({
      concurrency: system.config.TURN_CONCURRENCY,
      depth: system.config.TURN_QUEUE_DEPTH,
    }),
  );
  return {
    runtime,
    options: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      // SDK session tokens (X-SDK-Token) only with SDK_TOKEN_SECRET; unset: refused (401).
      verifySdkToken:
        system.config.SDK_TOKEN_SECRET === undefined
          ? undefined
          : createSdkTokens({ secret: system.config.SDK_TOKEN_SECRET }).verify,
      runtime,
      sessionScope: sessionScopeFromLog(system.store),
      limits: limits.limits,
    },
    close: () => limits.close(),
  };
}
