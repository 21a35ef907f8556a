/**
 * The channel manifest (spec 001 §2.2) and provider variants: what the rest of @parley/channels
 * and its users import from here.
 */
export { AUTH_MODES, CHANNEL_MANIFEST, DELIVERY_KINDS, INGRESS_KINDS, manifestEntry } from './manifest.js';
export { adapterKey } from './providers.js';
