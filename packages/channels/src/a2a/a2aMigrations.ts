import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/**
 * The A2A task store (migrations/0001_a2a_tasks.sql), set `channels-a2a`. Independent of the other
 * sets (no foreign keys); it reads `channel_inbound_messages` (set `channels-inbound`) at query time.
 */
export const a2aMigrations: MigrationSet = loadMigrationSet(
  'channels-a2a',
  new URL('./migrations/', import.meta.url),
);
