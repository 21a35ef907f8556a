import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/**
 * The inbound pipeline's tables (migrations/0001_channel_inbound.sql): message deduplication and
 * the conversation-to-session map; 0002 the synchronous outcome; 0003 the platform ids of sent
 * messages (delivery receipts). Independent of the other sets (no foreign keys).
 */
export const channelInboundMigrations: MigrationSet = loadMigrationSet(
  'channels-inbound',
  new URL('./migrations/', import.meta.url),
);
