/**
 * SMS adapter (Twilio-style webhooks) and the text rendering of actions others share: what the
 * rest of @parley/channels and its users import from here.
 */
export { createSmsAdapter } from './smsAdapter.js';
export { actionSetAsText, toSmsOutput } from './smsTransform.js';
