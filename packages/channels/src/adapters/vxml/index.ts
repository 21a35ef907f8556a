/**
 * VoiceXML adapter (synchronous voice turns): what the rest of @parley/channels and its users
 * import from here.
 */
export { createVxmlAdapter } from './vxmlAdapter.js';
