import path from 'node:path';
import { ConfigError, loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { createMediaStorage } from './createMediaStorage.js';

// Building a storage does no I/O: the filesystem adapter creates directories on the first put,
// the S3 client connects on the first request.
describe('createMediaStorage', () => {
  it('defaults to the filesystem under <PARLEY_DATA_DIR>/media', () => {
    expect(createMediaStorage(loadConfig({})).kind).toBe('filesystem');
    expect(createMediaStorage(loadConfig({ MEDIA_DIR: path.join('/tmp', 'x') })).kind).toBe('filesystem');
  });

  it('builds the s3 storage for MEDIA_STORAGE=s3', () => {
    const storage = createMediaStorage(loadConfig({ MEDIA_STORAGE: 's3', S3_BUCKET: 'b' }));
    expect(storage.kind).toBe('s3');
    expect(typeof storage.presignGet).toBe('function');
  });

  it('fails fast on an incomplete s3 configuration', () => {
    expect(() => createMediaStorage(loadConfig({ MEDIA_STORAGE: 's3' }))).toThrow(ConfigError);
    expect(() =>
      createMediaStorage(loadConfig({ MEDIA_STORAGE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })),
    ).toThrow(ConfigError);
  });
});
