/** Slack Events API adapter: what the rest of @parley/channels and its users import from here. */
export { createSlackAdapter } from './slackAdapter.js';
