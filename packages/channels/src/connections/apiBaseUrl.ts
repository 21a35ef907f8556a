import { ParleyError } from '@parley/platform';
import {
  type CallbackAllowlist,
  type CallbackUrlRefusal,
  checkCallbackUrl,
  emptyAllowlist,
  type LookupFn,
} from '../httpAsync/callbackUrl.js';

/**
 * The guard on a connection's `settings.apiBaseUrl` (the platform base URL its sends go to):
 * the HTTP async callbacks' SSRF check (https only, no credentials in the URL, every address the
 * host resolves to public), with CHANNEL_API_BASE_URL_ALLOWLIST admitting non-public addresses
 * and plain http (a regional gateway on the private network, a test stand-in on loopback).
 */
export interface ApiBaseUrlGuard {
  /** Non-public addresses and hosts apiBaseUrl may reach (parseCallbackAllowlist syntax). Default: none. */
  allowlist?: CallbackAllowlist;
  /** DNS lookup (tests). */
  lookup?: LookupFn;
}

/** 400 VALIDATION_ERROR naming `settings.apiBaseUrl` and why it was refused. */
export class ApiBaseUrlRefusedError extends ParleyError {
  constructor(
    readonly reason: CallbackUrlRefusal,
    detail: string,
  ) {
    super('VALIDATION_ERROR', 400, `settings.apiBaseUrl: ${detail}`, {
      details: { field: 'settings.apiBaseUrl', reason },
      exposeDetails: true,
    });
    this.name = 'ApiBaseUrlRefusedError';
  }
}

/** The callback check's wording, said of apiBaseUrl. */
const reworded = (message: string): string =>
  message.replace(/^callback URL/, 'the URL').replace(/^callback host/, 'host');

/** Refusal of a settings object's apiBaseUrl, or null (absent or allowed). */
export async function apiBaseUrlRefusal(
  settings: Record<string, unknown>,
  guard: ApiBaseUrlGuard = {},
): Promise<ApiBaseUrlRefusedError | null> {
  const url = settings.apiBaseUrl;
  if (url === undefined) return null;
  if (typeof url !== 'string')
    return new ApiBaseUrlRefusedError('invalid_url', 'must be an http or https URL');
  const checked = await checkCallbackUrl(url, {
    allowlist: guard.allowlist ?? emptyAllowlist,
    ...(guard.lookup === undefined ? {} : { lookup: guard.lookup }),
  });
  return checked.ok ? null : new ApiBaseUrlRefusedError(checked.reason, reworded(checked.message));
}

/** Throws ApiBaseUrlRefusedError when the settings' apiBaseUrl may not be used. */
export async function checkApiBaseUrl(
  settings: Record<string, unknown>,
  guard: ApiBaseUrlGuard = {},
): Promise<void> {
  const refusal = await apiBaseUrlRefusal(settings, guard);
  if (refusal !== null) throw refusal;
}
