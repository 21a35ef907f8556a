import type { AuthStore } from '@parley/auth';
import {
  createInProcessMediaTokenStore,
  createMediaStorage,
  createRedisMediaTokenStore,
  type MediaTokenStore,
} from '@parley/media';
import { createRedisClient } from '@parley/platform';
import type { ProcessDependencies } from '@parley/process-services';
import { loadRecordingFile, loadSessionRecordings } from '@parley/projection-recordings';
import type { RecordingsRouteOptions } from '../routes/recordings/index.js';

/** How long a tenant's callRecording switch is cached per API process. */
const TENANT_FEATURE_TTL_MS = 30_000;

/**
 * What the recordings routes need, from the process's dependencies: media storage as configured (MEDIA_STORAGE),
 * media tokens in Redis when REDIS_URL is set (several API replicas verify each other's tokens),
 * else in this process (`parley start`: one process issues and serves them).
 */
export function recordingsServices(
  system: ProcessDependencies,
  auth: AuthStore,
): { options: RecordingsRouteOptions; close(): Promise<void> } {
  const { config, pool, store } = system;
  let redis: ReturnType<typeof createRedisClient> | undefined;
  let tokens: MediaTokenStore;
  if (config.REDIS_URL === undefined) {
    tokens = createInProcessMediaTokenStore();
  } else {
    // While Redis is away no URL can be issued (url_signing_failed, retryable) and no token checked
    // (503): media is never served on a token that could not be verified (docs/reliability.md).
    redis = createRedisClient(config.REDIS_URL, {
      purpose: 'media tokens',
      commandTimeoutMs: 1_000,
      logger: system.logger,
    });
    tokens = createRedisMediaTokenStore(redis);
  }
  const features = new Map<string, { enabled: boolean; until: number }>();
  const options: RecordingsRouteOptions = {
    verify: (key) => auth.verifyApiKey(key),
    async callRecordingEnabled(tenantId) {
      const cached = features.get(tenantId);
      if (cached && cached.until > Date.now()) return cached.enabled;
      const enabled = (await auth.getTenant(tenantId))?.features.callRecording === true;
      features.set(tenantId, { enabled, until: Date.now() + TENANT_FEATURE_TTL_MS });
      return enabled;
    },
    async recordingSettings(projectId) {
      const project = await auth.getProject(projectId);
      if (project === null) throw new Error('project not found');
      return project.settings.recording;
    },
    loadSessionRecordings: (projectId, sessionId, limit) =>
      loadSessionRecordings(pool, projectId, sessionId, limit),
    loadRecordingFile: (projectId, recordingId, objectIndex) =>
      loadRecordingFile(pool, projectId, recordingId, objectIndex),
    storage: createMediaStorage(config),
    tokens,
    append: (stream, events) => store.append(stream, events),
    mediaUrlTtlSeconds: config.RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS,
    objectLimit: config.RECORDING_PUBLIC_RECORDING_OBJECT_LIMIT,
  };
  return {
    options,
    async close() {
      await tokens.close();
      await redis?.quit().catch(() => redis?.disconnect());
    },
  };
}
