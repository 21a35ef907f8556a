import { type ChatRouteOptions, sessionScopeFromLog } from '@parley/api';
import { type AuthStore, expandScopes } from '@parley/auth';
import { createJwtVerifier, createSdkTokens, sessionLimitsFromConfig, type VerifyJwt } from '@parley/http';
import { createPriceCards, createProviderRegistry, createRuntime, type Runtime } from '@parley/runtime';
import type { System } from './system.js';

/** The runtime of one process: the log, the configured providers (scripted always), the built-in price cards. */
export function runtimeOf(system: System): Runtime {
  const { config, logger, pool, store } = system;
  return createRuntime({
    pool,
    store,
    providers: createProviderRegistry(config),
    priceCards: createPriceCards(),
    logger: logger.child({ component: 'runtime' }),
  });
}

/**
 * User JWT bearer verification as configured (JWT_SECRET and/or JWT_JWKS_URL); undefined when
 * neither is set. The token's tenant and projects are checked against the auth store.
 */
export function jwtVerifierOf(system: System, auth: AuthStore): VerifyJwt | undefined {
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
  system: System,
  auth: AuthStore,
  verifyJwt: VerifyJwt | undefined,
): { options: ChatRouteOptions; close(): Promise<void> } {
  const limits = sessionLimitsFromConfig(system.config);
  return {
    options: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      // SDK session tokens (X-SDK-Token) only with SDK_TOKEN_SECRET; unset: refused (401).
      verifySdkToken:
        system.config.SDK_TOKEN_SECRET === undefined
          ? undefined
          : createSdkTokens({ secret: system.config.SDK_TOKEN_SECRET }).verify,
      runtime: runtimeOf(system),
      sessionScope: sessionScopeFromLog(system.store),
      limits: limits.limits,
    },
    close: () => limits.close(),
  };
}
