import type { ApiBaseUrlGuard } from '../connections/apiBaseUrl.js';
import { parseCallbackAllowlist } from '../httpAsync/callbackUrl.js';

/**
 * Test-only: the apiBaseUrl guard with loopback allowlisted (as CHANNEL_API_BASE_URL_ALLOWLIST
 * `127.0.0.1/32,::1/128` would), for connection stores whose connections point at local stand-ins.
 */
export const LOOPBACK_API_BASE_URLS: ApiBaseUrlGuard = {
  allowlist: parseCallbackAllowlist('127.0.0.1/32,::1/128'),
};
