import path from 'node:path';
import { type Config, ConfigError } from '@parley/platform';
import { createFilesystemMediaStorage } from './filesystemMediaStorage.js';
import type { MediaStorage } from './mediaStorage.js';
import { createS3MediaStorage } from './s3MediaStorage.js';

export type MediaStorageConfig = Pick<
  Config,
  | 'MEDIA_STORAGE'
  | 'MEDIA_DIR'
  | 'PARLEY_DATA_DIR'
  | 'S3_BUCKET'
  | 'S3_REGION'
  | 'S3_ENDPOINT'
  | 'S3_FORCE_PATH_STYLE'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
>;

export interface CreateMediaStorageOptions {
  /** Directory that a relative MEDIA_DIR / PARLEY_DATA_DIR is resolved against (default: the working directory). */
  baseDir?: string;
}

/** The storage the configuration names: MEDIA_STORAGE=filesystem (MEDIA_DIR, default `<PARLEY_DATA_DIR>/media`) or s3. */
export function createMediaStorage(
  config: MediaStorageConfig,
  options: CreateMediaStorageOptions = {},
): MediaStorage {
  if (config.MEDIA_STORAGE === 's3') {
    if (config.S3_BUCKET === undefined) throw new ConfigError(['S3_BUCKET: required when MEDIA_STORAGE=s3']);
    const hasKey = config.S3_ACCESS_KEY_ID !== undefined;
    if (hasKey !== (config.S3_SECRET_ACCESS_KEY !== undefined)) {
      throw new ConfigError(['S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither']);
    }
    return createS3MediaStorage({
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      ...(config.S3_ENDPOINT === undefined ? {} : { endpoint: config.S3_ENDPOINT }),
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      ...(config.S3_ACCESS_KEY_ID !== undefined && config.S3_SECRET_ACCESS_KEY !== undefined
        ? {
            credentials: {
              accessKeyId: config.S3_ACCESS_KEY_ID,
              secretAccessKey: config.S3_SECRET_ACCESS_KEY,
            },
          }
        : {}),
    });
  }
  const base = options.baseDir ?? process.cwd();
  const dir = config.MEDIA_DIR ?? path.join(config.PARLEY_DATA_DIR, 'media');
  return createFilesystemMediaStorage(path.resolve(base, dir));
}
