export { contentDisposition } from './contentDisposition.js';
export { proxiedMediaPath } from './proxiedMediaPath.js';
export { recordingMediaKey } from './recordingMediaKey.js';
export {
  type CreateMediaStorageOptions,
  createMediaStorage,
  type MediaStorageConfig,
} from './storage/createMediaStorage.js';
export { contentTypeForKey, createFilesystemMediaStorage } from './storage/filesystemMediaStorage.js';
export { isValidMediaKey } from './storage/mediaKey.js';
export {
  type ByteRange,
  type Disposition,
  type MediaObjectInfo,
  MediaObjectMissingError,
  MediaRangeNotSatisfiableError,
  type MediaReadResult,
  type MediaStorage,
  type PresignGetOptions,
} from './storage/mediaStorage.js';
export { createS3MediaStorage, type S3MediaStorageOptions } from './storage/s3MediaStorage.js';
export {
  createInProcessMediaTokenStore,
  type InProcessMediaTokenStoreOptions,
} from './tokens/inProcessMediaTokenStore.js';
export {
  isMediaTokenShaped,
  type MediaTokenBinding,
  type MediaTokenClaims,
  type MediaTokenStore,
} from './tokens/mediaTokenStore.js';
export {
  createRedisMediaTokenStore,
  type RedisMediaTokenStoreOptions,
} from './tokens/redisMediaTokenStore.js';
