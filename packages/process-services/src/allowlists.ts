import { type CallbackAllowlist, parseCallbackAllowlist } from '@parley/channels';
import { type Config, ConfigError } from '@parley/platform';

/**
 * HTTP_ASYNC_CALLBACK_ALLOWLIST, parsed: the addresses and hosts callback and push URLs may reach
 * although they are not public. A bad entry stops the process with the variable named.
 */
export function callbackAllowlistOf(
  config: Pick<Config, 'HTTP_ASYNC_CALLBACK_ALLOWLIST'>,
): CallbackAllowlist {
  try {
    return parseCallbackAllowlist(config.HTTP_ASYNC_CALLBACK_ALLOWLIST);
  } catch (err) {
    throw new ConfigError([
      `HTTP_ASYNC_CALLBACK_ALLOWLIST: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
}

/** TOOL_HTTP_ALLOWLIST, parsed the same way: what agents' http tools and remote agents may reach although not public. */
export function toolAllowlistOf(config: Pick<Config, 'TOOL_HTTP_ALLOWLIST'>): CallbackAllowlist {
  try {
    return parseCallbackAllowlist(config.TOOL_HTTP_ALLOWLIST);
  } catch (err) {
    throw new ConfigError([`TOOL_HTTP_ALLOWLIST: ${err instanceof Error ? err.message : String(err)}`]);
  }
}

/** CHANNEL_API_BASE_URL_ALLOWLIST, parsed the same way: what connections' `settings.apiBaseUrl` may reach although not public. */
export function apiBaseUrlAllowlistOf(
  config: Pick<Config, 'CHANNEL_API_BASE_URL_ALLOWLIST'>,
): CallbackAllowlist {
  try {
    return parseCallbackAllowlist(config.CHANNEL_API_BASE_URL_ALLOWLIST);
  } catch (err) {
    throw new ConfigError([
      `CHANNEL_API_BASE_URL_ALLOWLIST: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
}
