export {
  COALESCED_NOTIFY_INTERVAL_MS,
  type CoalescedNotify,
  type CoalescedNotifyOptions,
  createCoalescedNotify,
} from './coalescedNotify.js';
export { type Config, ConfigError, configSchema, loadConfig } from './config.js';
export { isConnectionError } from './connectionErrors.js';
export { constantTimeEqual } from './constantTimeEqual.js';
export {
  CREDENTIALS_KEY_BYTES,
  type CredentialKeyring,
  CredentialsDecryptError,
  CredentialsKeyUnknownError,
  createKeyring,
  credentialsKeyId,
  keyringFromConfig,
  parseCredentialsKey,
} from './credentialKeyring.js';
export {
  createPool,
  type Pool,
  type PoolClient,
  type PoolSettings,
  ping,
  type QueryResultRow,
  readSnapshot,
  withTransaction,
} from './db.js';
export {
  type EmbeddedPostgresHandle,
  type EmbeddedPostgresOptions,
  findRunningEmbeddedPostgres,
  freePort,
  startEmbeddedPostgres,
} from './embeddedPostgres.js';
export { isParleyError, ParleyError } from './errors.js';
export {
  createHs256Tokens,
  type Hs256TokenOptions,
  type Hs256Tokens,
  type VerifiedToken,
  type VerifyTokenFailureReason,
} from './hs256Tokens.js';
export { derivedUuid, newId } from './ids.js';
export {
  defineJob,
  InvalidJobPayloadError,
  type JobDefinition,
  type JobPayload,
  type ParsedJobPayload,
  parseJobPayload,
} from './jobPayloads.js';
export {
  ensureQueue,
  isMissingRelation,
  nullIfQueueMissing,
  PG_BOSS_QUEUE_NOT_FOUND,
  PG_BOSS_SCHEMA,
  pgBossQueueExists,
  type QueueAdmin,
} from './jobQueues.js';
export { createLogger, type Logger, type LoggerSettings, redactedPaths, silentLogger } from './logger.js';
export {
  loadMigrationSet,
  type Migration,
  MigrationError,
  type MigrationSet,
  migrate,
  pendingMigrations,
} from './migrations.js';
export { createRedisClient, type RedisClientOptions } from './redisClient.js';
export {
  dottedPath,
  findUnstorableText,
  isStorableText,
  isUnstorableTextError,
  REPLACEMENT_CHARACTER,
  replaceUnstorableText,
  type TextPath,
  toStorableText,
  UNSTORABLE_TEXT_MESSAGE,
} from './storableText.js';
export { abortableSleep } from './timers.js';
