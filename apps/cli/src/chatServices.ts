import { type ChatRouteOptions, sessionScopeFromLog, withExecutionQueue } from '@parley/api';
import { type AuthStore, expandScopes } from '@parley/auth';
import { createGuardedFetch, keyringFromConfig } from '@parley/channels';
import {
  createExecutionQueue,
  createJwtVerifier,
  createSdkTokens,
  sessionLimitsFromConfig,
  type VerifyJwt,
} from '@parley/http';
import { createPriceCards, createProviderRegistry, createRuntime, type Runtime } from '@parley/runtime';
import { toolAllowlistOf } from './callbackAllowlist.js';
import type { System } from './system.js';

/** The largest http tool response any agent may accept (the schema's limit), plus one byte to tell it was longer. */
const TOOL_RESPONSE_BYTES = 1024 * 1024 + 1;

/** Where external systems reach this deployment: PUBLIC_BASE_URL, else the API's own address. */
export const publicBaseUrlOf = (config: System['config']): string =>
  config.PUBLIC_BASE_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;

/**
 * The runtime of one process: the log, the configured providers (scripted always), the built-in
 * price cards, the credentials keyring (agents' secrets, suspensions), and the SSRF-guarded fetch
 * of http tools and remote agents (TOOL_HTTP_ALLOWLIST).
 */
export function runtimeOf(system: System): Runtime {
  const { config, logger, pool, store } = system;
  const keyring = keyringFromConfig(config);
  return createRuntime({
    pool,
    store,
    providers: createProviderRegistry(config),
    priceCards: createPriceCards(),
    logger: logger.child({ component: 'runtime' }),
    ...(keyring === null ? {} : { secrets: keyring }),
    toolFetch: createGuardedFetch({
      allowlist: toolAllowlistOf(config),
      timeoutMs: 120_000,
      maxResponseBytes: TOOL_RESPONSE_BYTES,
    }),
    publicBaseUrl: publicBaseUrlOf(config),
    suspensionTimeoutSeconds: config.TOOL_SUSPENSION_TIMEOUT_SECONDS,
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
  const limits = sessionLimitsFromConfig(system.config, system.logger);
  return {
    options: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt,
      // SDK session tokens (X-SDK-Token) only with SDK_TOKEN_SECRET; unset: refused (401).
      verifySdkToken:
        system.config.SDK_TOKEN_SECRET === undefined
          ? undefined
          : createSdkTokens({ secret: system.config.SDK_TOKEN_SECRET }).verify,
      // Every turn of the API process goes through the execution queue (429 QUEUE_FULL when full).
      runtime: withExecutionQueue(
        runtimeOf(system),
        createExecutionQueue({
          concurrency: system.config.TURN_CONCURRENCY,
          depth: system.config.TURN_QUEUE_DEPTH,
        }),
      ),
      sessionScope: sessionScopeFromLog(system.store),
      limits: limits.limits,
    },
    close: () => limits.close(),
  };
}
