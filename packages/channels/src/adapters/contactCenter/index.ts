/**
 * Contact-centre adapter (Genesys-style synchronous webhook): what the rest of @parley/channels
 * and its users import from here.
 */
export { createContactCenterAdapter } from './contactCenterAdapter.js';
