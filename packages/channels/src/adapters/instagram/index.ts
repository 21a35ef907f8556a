/**
 * Instagram messaging adapter (Meta Graph API; shares the Messenger parser): what the rest of
 * @parley/channels and its users import from here.
 */
export { createInstagramAdapter } from './instagramAdapter.js';
