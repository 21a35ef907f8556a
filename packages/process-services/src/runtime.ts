import { createGuardedFetch } from '@parley/channels';
import { keyringFromConfig } from '@parley/platform';
import { createPriceCards, createProviderRegistry, createRuntime, type Runtime } from '@parley/runtime';
import { toolAllowlistOf } from './allowlists.js';
import type { ProcessDependencies } from './dependencies.js';

/** The largest http tool response any agent may accept (the schema's limit), plus one byte to tell it was longer. */
const TOOL_RESPONSE_BYTES = 1024 * 1024 + 1;

/** Where external systems reach this deployment: PUBLIC_BASE_URL, else the API's own address. */
export const publicBaseUrlOf = (config: ProcessDependencies['config']): string =>
  config.PUBLIC_BASE_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;

/**
 * The runtime of one process: the log, the configured providers (scripted always), the built-in
 * price cards, the credentials keyring (agents' secrets, suspensions), and the SSRF-guarded fetch
 * of http tools and remote agents (TOOL_HTTP_ALLOWLIST).
 */
export function runtimeOf(deps: Pick<ProcessDependencies, 'config' | 'logger' | 'pool' | 'store'>): Runtime {
  const { config, logger, pool, store } = deps;
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
