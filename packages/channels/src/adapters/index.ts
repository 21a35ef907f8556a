/**
 * The platform adapters, one folder each, and the registry of those the build ships: what the rest
 * of @parley/channels and its users import from here.
 */
export { createContactCenterAdapter } from './contactCenter/index.js';
export { channelEmailMigrations, createEmailThreadStore } from './email/index.js';
export { createChannelAdapters } from './registry.js';
export { verifyTelegramSecret } from './telegram/index.js';
export { createVxmlAdapter } from './vxml/index.js';
