/** LINE Messaging API adapter: what the rest of @parley/channels and its users import from here. */
export { createLineAdapter } from './lineAdapter.js';
