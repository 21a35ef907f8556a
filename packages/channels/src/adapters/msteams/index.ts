/**
 * Microsoft Teams adapter (Bot Framework): what the rest of @parley/channels and its users import
 * from here.
 */
export { createMsTeamsAdapter } from './msteamsAdapter.js';
