/**
 * Zendesk Sunshine Conversations adapter: what the rest of @parley/channels and its users import
 * from here.
 */
export { createZendeskAdapter } from './zendeskAdapter.js';
