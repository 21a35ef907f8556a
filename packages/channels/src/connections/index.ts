/**
 * Channel connections: schema, rules and the store with encrypted credentials: what the rest of
 * @parley/channels and its users import from here.
 */
export {
  type ApiBaseUrlGuard,
  ApiBaseUrlRefusedError,
  apiBaseUrlRefusal,
  checkApiBaseUrl,
} from './apiBaseUrl.js';
export { CONNECTION_CACHE_TTL_MS, cachedConnectionStore } from './cachedStore.js';
export { connectionInputSchema, connectionPatchSchema } from './schema.js';
export {
  type ChannelConnection,
  CONNECTION_ERROR_THRESHOLD,
  type ConnectionStore,
  type ConnectionStoreOptions,
  createConnectionStore,
} from './store.js';
