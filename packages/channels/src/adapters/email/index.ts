/**
 * Email adapter (inbound mail parsing, threading, SMTP / Microsoft Graph sending): what the rest
 * of @parley/channels and its users import from here.
 */
export { createEmailAdapter } from './emailAdapter.js';
export { channelEmailMigrations } from './emailMigrations.js';
export {
  type AutomatedReason,
  automatedReason,
  readInboundEmail,
  toNormalizedMessage,
} from './emailPayload.js';
export { EMAIL_CHANNEL_TYPE, emailSettingsSchema } from './emailSettings.js';
export { createEmailThreadStore, type EmailThreadStore } from './emailThreads.js';
