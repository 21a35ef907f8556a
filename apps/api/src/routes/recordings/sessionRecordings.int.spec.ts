import { randomUUID } from 'node:crypto';
import { auditStream, recordingStream } from '@parley/events';
import { AUTHENTICATION_MESSAGE } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { contentDisposition } from '@parley/media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRecordingsFixture,
  type RecordingsFixture,
  serverFile,
  sessionEvents,
} from '../../testing/recordingsFixture.js';
import type { RecordingsRouteOptions } from './options.js';

let f: RecordingsFixture;
beforeAll(async () => {
  f = await createRecordingsFixture();
});
afterAll(async () => {
  await f?.close();
});

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const url = (sessionId: string, query = '', projectId = f.projectId) =>
  `/api/public/recordings/projects/${projectId}/sessions/${encodeURIComponent(sessionId)}/recordings${query}`;
const get = (
  target: string,
  headers: Record<string, string> = { 'x-api-key': f.keys.recordings },
  app = f.app,
) => app.inject({ method: 'GET', url: target, headers: { 'x-request-id': 'req-1', ...headers } });
const newSession = () => `sess-${randomUUID()}`;
const newRecording = () => `rec-${randomUUID()}`;

/** A session that ended with one recording of three stored files (caller, agent, mixed). */
async function recordedSession(): Promise<{ sessionId: string; recordingId: string; media: Buffer[] }> {
  const sessionId = newSession();
  const recordingId = newRecording();
  const e = sessionEvents(f.projectId, sessionId);
  const media = [0, 1, 2].map((i) => Buffer.from(`RIFF-media-${i}-${'x'.repeat(100 + i)}`));
  const keys = await Promise.all(media.map((m, i) => f.putMedia(recordingId, i, m)));
  await f.appendAndProject([
    e.started(),
    e.recordingStarted(recordingId, { retentionExpiresAt: '2027-11-21T08:01:00.000Z' }),
    e.completed(recordingId, [serverFile(0, 'caller'), serverFile(1, 'agent'), serverFile(2, 'mixed')]),
    ...media.map((m, i) => e.stored(recordingId, i, keys[i]!, m.length, { durationSeconds: 539.5 })),
    e.ended(),
  ]);
  return { sessionId, recordingId, media };
}

async function auditRecords(projectId = f.projectId) {
  const records = [];
  try {
    for await (const event of f.store.readStream(auditStream(projectId))) records.push(event);
  } catch {
    return [];
  }
  return records;
}

describe('GET /api/public/recordings/projects/{projectId}/sessions/{sessionId}/recordings', () => {
  it('200: every field of a session whose three files are stored, with proxied URLs, no-cache headers and an audit record', async () => {
    const { sessionId, recordingId, media } = await recordedSession();
    const before = (await auditRecords()).length;
    const res = await get(url(sessionId, '?disposition=inline'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const body = res.json();
    const file = (objectIndex: number, channel: string) => ({
      recordingId,
      objectIndex,
      fileName: `call-${channel}.wav`,
      channel,
      recordingType: 'audio',
      bytes: media[objectIndex]!.length,
      recordingStartTime: '2026-11-21T08:01:00.000Z',
      recordingEndTime: '2026-11-21T08:10:00.000Z',
      availability: 'available',
      url: expect.stringMatching(
        new RegExp(
          `^/api/projects/${f.projectId}/recordings/${recordingId}/media/content/[A-Za-z0-9_-]{43}\\?objectIndex=${objectIndex}&disposition=inline$`,
        ),
      ),
      urlKind: 'proxied',
      expiresIn: 900,
      unavailableReason: null,
      retryable: false,
    });
    expect(body).toEqual({
      success: true,
      data: {
        sessionId,
        projectId: f.projectId,
        status: 'success',
        unavailableReason: null,
        retryable: false,
        recordings: [
          {
            recordingId,
            callId: `call-${recordingId}`,
            availability: 'available',
            unavailableReason: null,
            retryable: false,
            durationSeconds: expect.any(Number),
            immutable: false,
            createdAt: '2026-11-21T08:01:00.000Z',
            retentionExpiresAt: '2027-11-21T08:01:00.000Z',
            files: [file(0, 'caller'), file(1, 'agent'), file(2, 'mixed')],
          },
        ],
      },
    });
    // Field order as in spec 000 §2.1.
    expect(Object.keys(body.data)).toEqual([
      'sessionId',
      'projectId',
      'status',
      'unavailableReason',
      'retryable',
      'recordings',
    ]);
    expect(Object.keys(body.data.recordings[0].files[0])).toEqual([
      'recordingId',
      'objectIndex',
      'fileName',
      'channel',
      'recordingType',
      'bytes',
      'recordingStartTime',
      'recordingEndTime',
      'availability',
      'url',
      'urlKind',
      'expiresIn',
      'unavailableReason',
      'retryable',
    ]);

    // The URLs work as returned, with no authentication header.
    for (const [i, f0] of body.data.recordings[0].files.entries()) {
      const media0 = await f.app.inject({ method: 'GET', url: f0.url });
      expect(media0.statusCode).toBe(200);
      expect(media0.rawPayload.equals(media[i]!)).toBe(true);
      expect(media0.headers['content-disposition']).toBe(contentDisposition('inline', f0.fileName));
    }

    const audit = (await auditRecords()).slice(before);
    const issued = audit.filter(
      (a) => (a.data as { action: string }).action === 'recording:public_media_urls_issued',
    );
    expect(issued).toHaveLength(1);
    expect(issued[0]!.data).toEqual({
      projectId: f.projectId,
      tenantId: f.tenantId,
      action: 'recording:public_media_urls_issued',
      principal: { kind: 'api_key', id: expect.stringMatching(/^key_/) },
      resource: { type: 'session', id: sessionId },
      content: {
        files: [0, 1, 2].map((objectIndex) => ({ recordingId, objectIndex, urlKind: 'proxied' })),
        disposition: 'inline',
      },
      at: expect.any(String),
    });
    expect(JSON.stringify(audit.map((a) => a.data))).not.toContain('/media/content/');
  });

  it('takes the key as Authorization: Bearer too, and defaults disposition to attachment', async () => {
    const { sessionId } = await recordedSession();
    const res = await get(url(sessionId), { authorization: `Bearer ${f.keys.recordings}` });
    expect(res.statusCode).toBe(200);
    for (const file of res.json().data.recordings[0].files)
      expect(file.url).toMatch(/disposition=attachment$/);
  });

  it('marks a recording under legal hold immutable', async () => {
    const { sessionId, recordingId } = await recordedSession();
    await f.appendAndProject([sessionEvents(f.projectId, sessionId).legalHold(recordingId)]);
    const res = await get(url(sessionId));
    expect(res.json().data.recordings[0].immutable).toBe(true);
  });

  describe('errors (spec 000 §7)', () => {
    it('400 INVALID_SESSION_ID: sessionId over 256 characters', async () => {
      const res = await get(url('s'.repeat(257)));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'INVALID_SESSION_ID', message: expect.any(String) },
      });
      expect((await get(url('s'.repeat(256)))).statusCode).toBe(404);
    });

    it('400 INVALID_SESSION_ID: empty sessionId', async () => {
      const res = await get(`/api/public/recordings/projects/${f.projectId}/sessions//recordings`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('INVALID_SESSION_ID');
    });

    it('400 INVALID_PUBLIC_RECORDING_REQUEST: disposition neither inline nor attachment', async () => {
      const { sessionId } = await recordedSession();
      for (const query of [
        '?disposition=download',
        '?disposition=',
        '?disposition=INLINE',
        '?disposition=inline&disposition=attachment',
      ]) {
        const res = await get(url(sessionId, query));
        expect(res.statusCode, query).toBe(400);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'INVALID_PUBLIC_RECORDING_REQUEST', message: expect.any(String) },
        });
      }
    });

    it('401 in the authentication envelope: missing, unknown and revoked keys', async () => {
      const revoked = await f.auth.createApiKey({
        projectId: f.projectId,
        scopes: ['recordings.read'],
        name: 'gone',
      });
      await f.auth.revokeApiKey(revoked.record.id);
      const cases: Array<Record<string, string>> = [
        {},
        { 'x-api-key': 'plat_unknown_0123456789abcdef' },
        { 'x-api-key': revoked.key },
        { authorization: 'Basic x' },
      ];
      for (const headers of cases) {
        const res = await get(url(newSession()), headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: AUTHENTICATION_MESSAGE, requestId: 'req-1' });
      }
    });

    it('403 PERMISSION_REQUIRED with required recording:read', async () => {
      const res = await get(url(newSession()), { 'x-api-key': f.keys.analyticsOnly });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PERMISSION_REQUIRED', message: expect.any(String) },
        required: 'recording:read',
      });
    });

    it('403 PLATFORM_API_KEY_REQUIRED for a JWT, an app assertion and a pk_ key', async () => {
      const refused: Array<Record<string, string>> = [
        { authorization: `Bearer ${JWT}` },
        { auth: JWT },
        { 'x-api-key': 'pk_live_0123456789' },
      ];
      for (const headers of refused) {
        const res = await get(url(newSession()), headers);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'PLATFORM_API_KEY_REQUIRED', message: expect.any(String) },
        });
      }
    });

    it('403 RECORDING_FEATURE_DISABLED for a tenant without call recording, before any lookup', async () => {
      let lookups = 0;
      const counting: Partial<RecordingsRouteOptions> = {
        loadSessionRecordings: async (...args) => {
          lookups++;
          return f.options.loadSessionRecordings(...args);
        },
        recordingSettings: async (...args) => {
          lookups++;
          return f.options.recordingSettings(...args);
        },
      };
      const app = await f.makeApp(counting);
      try {
        const res = await get(
          url(newSession(), '?disposition=bogus', f.noFeatureProjectId),
          { 'x-api-key': f.keys.noFeature },
          app,
        );
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({
          success: false,
          error: {
            code: 'RECORDING_FEATURE_DISABLED',
            message: 'Call recording is not enabled for this tenant',
          },
        });
        expect(lookups).toBe(0);
      } finally {
        await app.close();
      }
    });

    it('404 PROJECT_NOT_FOUND for a key bound to another project, identical whether the project exists', async () => {
      const { sessionId } = await recordedSession();
      const existing = await get(url(sessionId), { 'x-api-key': f.keys.otherProject });
      const invented = await get(url(sessionId, '', 'proj_does_not_exist'), {
        'x-api-key': f.keys.otherProject,
      });
      expect(existing.statusCode).toBe(404);
      expect(existing.body).toBe(invented.body);
      expect(existing.json()).toEqual({
        success: false,
        error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found' },
      });
    });

    it('404 SESSION_NOT_FOUND for a session the project does not have', async () => {
      const res = await get(url(newSession()));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'SESSION_NOT_FOUND', message: 'Session not found' },
      });
      // A session of another project is not found either.
      const sessionId = newSession();
      await f.appendAndProject([sessionEvents(f.otherProjectId, sessionId).started()]);
      expect((await get(url(sessionId))).json().error.code).toBe('SESSION_NOT_FOUND');
    });

    it('413 RECORDING_QUERY_LIMIT_EXCEEDED for more than 64 recordings; 64 are fine', async () => {
      const sessionId = newSession();
      const e = sessionEvents(f.projectId, sessionId);
      await f.appendAndProject([
        e.started(),
        ...Array.from({ length: 64 }, () => e.recordingStarted(newRecording())),
      ]);
      const at64 = await get(url(sessionId));
      expect(at64.statusCode).toBe(200);
      expect(at64.json().data.recordings).toHaveLength(64);
      await f.appendAndProject([e.recordingStarted(newRecording())]);
      const res = await get(url(sessionId));
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'RECORDING_QUERY_LIMIT_EXCEEDED', message: expect.any(String) },
      });
    });

    it('413 RECORDING_OBJECT_LIMIT_EXCEEDED for more stored files than the object limit (setting and project override)', async () => {
      const { sessionId } = await recordedSession();
      const app = await f.makeApp({ objectLimit: 2 });
      try {
        const res = await get(url(sessionId), undefined, app);
        expect(res.statusCode).toBe(413);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'RECORDING_OBJECT_LIMIT_EXCEEDED', message: expect.any(String) },
        });
      } finally {
        await app.close();
      }
      const byProject = await f.makeApp({
        objectLimit: 2,
        recordingSettings: async () => ({ objectLimit: 3 }),
      });
      try {
        expect((await get(url(sessionId), undefined, byProject)).statusCode).toBe(200);
      } finally {
        await byProject.close();
      }
    });

    it('429 RATE_LIMIT_EXCEEDED over the tenant request rate, with retryAfterMs and Retry-After', async () => {
      const app = await f.makeApp({}, { defaultLimit: 1 });
      try {
        const sessionId = newSession();
        await get(url(sessionId), undefined, app);
        const res = await get(url(sessionId), undefined, app);
        expect(res.statusCode).toBe(429);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) },
          retryAfterMs: expect.any(Number),
        });
        expect(res.headers['retry-after']).toBeDefined();
      } finally {
        await app.close();
      }
    });

    it('500 INTERNAL_ERROR on an unexpected failure, with no detail', async () => {
      const app = await f.makeApp({
        loadSessionRecordings: async () => {
          throw new Error('connection reset by 10.0.0.7');
        },
      });
      try {
        const res = await get(url(newSession()), undefined, app);
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'INTERNAL_ERROR', message: 'Internal error' },
        });
      } finally {
        await app.close();
      }
    });

    it('503 RECORDING_SETTINGS_UNAVAILABLE when the settings cannot be read or are malformed', async () => {
      const failing = await f.makeApp({
        recordingSettings: async () => {
          throw new Error('settings store down');
        },
      });
      const malformed = await f.makeApp({
        recordingSettings: async () => ({ objectLimit: 'lots', enabled: 'yes' }),
      });
      try {
        for (const app of [failing, malformed]) {
          const res = await get(url(newSession()), undefined, app);
          expect(res.statusCode).toBe(503);
          expect(res.json()).toEqual({
            success: false,
            error: { code: 'RECORDING_SETTINGS_UNAVAILABLE', message: 'Service unavailable' },
          });
        }
      } finally {
        await failing.close();
        await malformed.close();
      }
    });
  });

  it('is in /openapi.json with its exact shapes', async () => {
    const res = await f.app.inject({ method: 'GET', url: '/openapi.json' });
    const document = res.json();
    expect(
      openApiProblems(document, [
        { method: 'GET', url: '/api/public/recordings/projects/:projectId/sessions/:sessionId/recordings' },
        { method: 'GET', url: '/api/projects/:projectId/recordings/:recordingId/media/content/:token' },
      ]),
    ).toEqual([]);
    const operation =
      document.paths['/api/public/recordings/projects/{projectId}/sessions/{sessionId}/recordings'].get;
    expect(operation.operationId).toBe('getSessionRecordings');
    expect(Object.keys(operation.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '414',
      '429',
      '431',
      '500',
      '503',
    ]);
  });

  it('has its own description, version 1.0.0, at /openapi/recordings.json (spec 000 §9.3)', async () => {
    const res = await f.app.inject({ method: 'GET', url: '/openapi/recordings.json' });
    expect(res.statusCode).toBe(200);
    const description = res.json();
    expect(description.info).toMatchObject({ title: 'Parley recordings API', version: '1.0.0' });
    const routes = [
      { method: 'GET', url: '/api/public/recordings/projects/:projectId/sessions/:sessionId/recordings' },
      { method: 'GET', url: '/api/projects/:projectId/recordings/:recordingId/media/content/:token' },
    ];
    expect(openApiProblems(description, routes)).toEqual([]);
    expect(Object.keys(description.paths).sort()).toEqual(
      routes.map((r) => r.url.replace(/:(\w+)/g, '{$1}')).sort(),
    );
    // The same operations as in the whole document, which keeps the product's own version.
    const whole = (await f.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(whole.info.version).not.toBe('1.0.0');
    const path = '/api/public/recordings/projects/{projectId}/sessions/{sessionId}/recordings';
    expect(description.paths[path]).toEqual(whole.paths[path]);
  });

  it('never appends to the recording streams when nothing is missing', async () => {
    const { sessionId, recordingId } = await recordedSession();
    const count = async () => {
      let n = 0;
      for await (const _ of f.store.readStream(recordingStream(recordingId))) n++;
      return n;
    };
    const before = await count();
    await get(url(sessionId));
    expect(await count()).toBe(before);
  });
});
