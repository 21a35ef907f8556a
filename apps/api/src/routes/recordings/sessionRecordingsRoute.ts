import { auditStream, toAppend } from '@parley/events';
import { addRoute, errorResponses, requireApiKey } from '@parley/http';
import { isConnectionError } from '@parley/platform';
import { deriveSessionRecordings, type RecordingsData } from '@parley/recordings';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { issueUrls } from './issueUrls.js';
import type { RecordingsRouteOptions } from './options.js';
import {
  invalidRecordingRequest,
  invalidSessionId,
  recordingFeatureDisabled,
  recordingObjectLimitExceeded,
  recordingQueryLimitExceeded,
  recordingSettingsUnavailable,
  sessionNotFound,
} from './recordingErrors.js';
import { effectiveRecordingSettings } from './recordingSettings.js';
import {
  DISPOSITIONS,
  type Disposition,
  MAX_SESSION_ID_LENGTH,
  recordingsParams,
  recordingsQuery,
  recordingsResponseShape,
} from './recordingsSchemas.js';

/** Spec 000 §8: at most this many recordings per session; one more is read to tell "more". */
export const MAX_RECORDINGS_PER_SESSION = 64;

const errors = {
  400: errorResponses.standard,
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  413: errorResponses.standard,
  429: errorResponses.standard,
  500: errorResponses.standard,
  503: errorResponses.standard,
};

/**
 * GET /api/public/recordings/projects/{projectId}/sessions/{sessionId}/recordings (spec 000 §4.1).
 * Checks, in order: the credential, key and project binding and permission (requireApiKey), the
 * tenant's call-recording feature, the tenant rate limit, then sessionId and disposition, the
 * project's recording settings, the session's recordings and the two limits; then one URL per
 * stored file, the derived body (@parley/recordings), and an audit record when a URL was issued.
 */
export function sessionRecordingsRoute(app: FastifyInstance, deps: RecordingsRouteOptions): void {
  const now = deps.now ?? (() => new Date());

  const tenantGate: preHandlerAsyncHookHandler = async (request) => {
    // Before any lookup of the project's recordings (spec 000 §4.1 rule 1).
    if (!(await deps.callRecordingEnabled(request.principal!.tenantId))) throw recordingFeatureDisabled();
  };

  addRoute(app, {
    method: 'GET',
    url: '/api/public/recordings/projects/:projectId/sessions/:sessionId/recordings',
    summary: 'Get the call recordings of a session',
    description:
      'Every recording of the session with its files and ready-to-use media URLs (bearer secrets). Needs a platform API key with the `recordings.read` scope (permission `recording:read`), as `x-api-key` or `Authorization: Bearer`. Retry with backoff while `retryable` is true.',
    operationId: 'getSessionRecordings',
    tags: ['recordings'],
    security: [{ apiKey: [] }, { bearer: [] }],
    apiFamily: 'recordings',
    validation: 'document',
    params: recordingsParams,
    querystring: recordingsQuery,
    response: { 200: recordingsResponseShape, ...errors },
    preHandler: [
      requireApiKey({ verify: deps.verify, permission: 'recording:read', allowBearer: true }),
      tenantGate,
    ],
    handler: async (request, reply) => {
      const principal = request.principal!;
      const { projectId } = principal;
      const sessionId = (request.params as { sessionId?: unknown }).sessionId;
      if (
        typeof sessionId !== 'string' ||
        sessionId.length === 0 ||
        sessionId.length > MAX_SESSION_ID_LENGTH
      ) {
        throw invalidSessionId();
      }
      const disposition = parseDisposition((request.query as { disposition?: unknown }).disposition);

      let rawSettings: unknown;
      try {
        rawSettings = await deps.recordingSettings(projectId);
      } catch (err) {
        // The database away is every route's 503 SERVICE_UNAVAILABLE (with Retry-After), not a
        // problem of the project's settings.
        if (isConnectionError(err)) throw err;
        throw recordingSettingsUnavailable(err);
      }
      const settings = effectiveRecordingSettings(rawSettings, deps);
      if (settings === null) throw recordingSettingsUnavailable();

      const found = await deps.loadSessionRecordings(projectId, sessionId, MAX_RECORDINGS_PER_SESSION + 1);
      if (!found.sessionKnown && found.recordings.length === 0) throw sessionNotFound();
      if (found.recordings.length > MAX_RECORDINGS_PER_SESSION) {
        throw recordingQueryLimitExceeded(MAX_RECORDINGS_PER_SESSION);
      }
      const stored = found.recordings.reduce(
        (n, r) => n + r.files.filter((f) => f.state.kind === 'stored').length,
        0,
      );
      if (stored > settings.objectLimit) throw recordingObjectLimitExceeded(settings.objectLimit);

      const issued = await issueUrls(
        { storage: deps.storage, tokens: deps.tokens, append: deps.append, now },
        {
          projectId,
          tenantId: principal.tenantId,
          disposition,
          ttlSeconds: settings.mediaUrlTtlSeconds,
          log: request.log,
        },
        found.recordings,
      );
      const data = deriveSessionRecordings({
        sessionId,
        projectId,
        context: {
          sessionEnded: found.sessionEnded,
          recordingEnabled: settings.enabled && found.sessionRecordingEnabled !== false,
        },
        recordings: found.recordings,
        issued,
      });
      await audit(deps, {
        tenantId: principal.tenantId,
        keyId: principal.keyId,
        sessionId,
        disposition,
        data,
        at: now(),
      });

      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
      reply.header('referrer-policy', 'no-referrer');
      return { success: true, data };
    },
  });
}

/** Absent: attachment. Anything else than one of the two values (a repeat included): 400. */
function parseDisposition(value: unknown): Disposition {
  if (value === undefined) return 'attachment';
  if (typeof value === 'string' && (DISPOSITIONS as readonly string[]).includes(value))
    return value as Disposition;
  throw invalidRecordingRequest();
}

/**
 * recording:public_media_urls_issued (spec 000 §6) when the response carries at least one URL:
 * which files, which kinds, which disposition; never a URL. Awaited: a response whose URLs could
 * not be audited is not sent (500), so no URL leaves unrecorded.
 */
async function audit(
  deps: Pick<RecordingsRouteOptions, 'append'>,
  a: {
    tenantId: string;
    keyId: string;
    sessionId: string;
    disposition: Disposition;
    data: RecordingsData;
    at: Date;
  },
): Promise<void> {
  const files = a.data.recordings.flatMap((recording) =>
    recording.files.flatMap((file) =>
      file.urlKind === null
        ? []
        : [{ recordingId: file.recordingId, objectIndex: file.objectIndex, urlKind: file.urlKind }],
    ),
  );
  if (files.length === 0) return;
  const event = toAppend('AuditRecorded', {
    projectId: a.data.projectId,
    tenantId: a.tenantId,
    action: 'recording:public_media_urls_issued',
    principal: { kind: 'api_key', id: a.keyId },
    resource: { type: 'session', id: a.sessionId },
    content: { files, disposition: a.disposition },
    at: a.at.toISOString(),
  });
  await deps.append(auditStream(a.data.projectId), [event]);
}
