export { type IngestDeps, type IngestResponse, ingest } from './ingest.js';
export { type ItemResult, ingestBatch } from './ingestBatch.js';
export {
  INGEST_ITEM_KINDS,
  type IngestItem,
  type IngestItemKind,
  ingestDataSchemas,
  ingestItemSchema,
  ingestRequestSchema,
  MAX_INGEST_ITEMS,
} from './items.js';
export {
  deriveEventId,
  type IngestScope,
  type ItemError,
  type PreparedItem,
  prepareItems,
  retentionExpiresAt,
} from './prepareItems.js';
