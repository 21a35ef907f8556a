/// <reference path="./s3rver.d.ts" />
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3MediaStorageOptions } from '../storage/s3MediaStorage.js';

export interface RunningS3rver {
  /** Options for createS3MediaStorage pointing at this server (path-style, s3rver's fixed credentials). */
  storageOptions: S3MediaStorageOptions;
  /** The same as configuration variables, for createMediaStorage / loadConfig. */
  env: Record<string, string>;
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * An S3-compatible server (s3rver) on a free port of 127.0.0.1 with one empty bucket, its data in a fresh
 * temporary directory that `stop()` removes. For tests only.
 */
export async function startS3rver(bucket = 'parley-media'): Promise<RunningS3rver> {
  const directory = await mkdtemp(path.join(tmpdir(), 'parley-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    storageOptions: { bucket, region: 'us-east-1', endpoint, forcePathStyle: true, credentials },
    env: {
      MEDIA_STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
