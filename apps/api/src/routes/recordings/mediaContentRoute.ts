import { createHash } from 'node:crypto';
import { auditStream, toAppend } from '@parley/events';
import { addRoute, binaryBody, errorResponses, mediaResponse } from '@parley/http';
import {
  contentDisposition,
  type Disposition,
  isMediaTokenShaped,
  MediaObjectMissingError,
} from '@parley/media';
import { effectiveFileState } from '@parley/recordings';
import type { FastifyInstance } from 'fastify';
import { parseRange } from './byteRange.js';
import { recordObjectMissing } from './issueUrls.js';
import type { RecordingsRouteOptions } from './options.js';
import { mediaNotFound } from './recordingErrors.js';
import { DISPOSITIONS, mediaContentParams, mediaContentQuery } from './recordingsSchemas.js';

/** The path of proxied media URLs; the token segment is redacted from request logs (requestLogSerializers). */
export const MEDIA_CONTENT_URL = '/api/projects/:projectId/recordings/:recordingId/media/content/:token';
const OBJECT_INDEX = /^\d{1,9}$/;

/**
 * GET of a proxied media URL (spec 000 §2.1 urlKind `proxied`): no authentication header, the
 * media token is the credential. Any failure (bad query, unknown, expired or foreign token, a file
 * no longer stored) is the same 404, so a guessed or stale URL learns nothing. Serves one byte
 * range (206) or the whole object (200); a range past the end is 416. Each GET that streams
 * appends recording:media_content_streamed (spec 000 §6); HEAD answers headers only, unaudited.
 */
export function mediaContentRoute(app: FastifyInstance, deps: RecordingsRouteOptions): void {
  const now = deps.now ?? (() => new Date());
  addRoute(app, {
    method: 'GET',
    url: MEDIA_CONTENT_URL,
    summary: 'Fetch recording media through a proxied URL',
    description:
      'Use the `url` of a recordings response with urlKind `proxied` exactly as returned, prefixed with the API host, and no authentication header. Supports `Range: bytes=…` (206, 416).',
    operationId: 'getRecordingMediaContent',
    tags: ['recordings'],
    validation: 'document',
    params: mediaContentParams,
    querystring: mediaContentQuery,
    response: {
      // The media type the object was stored with (audio/wav, audio/mpeg, …; else application/octet-stream).
      200: mediaResponse('The whole media object', { '*/*': binaryBody }),
      206: mediaResponse('One byte range of the media object', { '*/*': binaryBody }),
      404: errorResponses.standard,
      416: errorResponses.standard,
    },
    handler: async (request, reply) => {
      const { projectId, recordingId, token } = request.params as {
        projectId: string;
        recordingId: string;
        token: string;
      };
      const query = request.query as { objectIndex?: unknown; disposition?: unknown };
      if (typeof query.objectIndex !== 'string' || !OBJECT_INDEX.test(query.objectIndex))
        throw mediaNotFound();
      if (
        typeof query.disposition !== 'string' ||
        !(DISPOSITIONS as readonly string[]).includes(query.disposition)
      ) {
        throw mediaNotFound();
      }
      const objectIndex = Number(query.objectIndex);
      const disposition = query.disposition as Disposition;
      if (!isMediaTokenShaped(token)) throw mediaNotFound();
      const claims = await deps.tokens.verify(token, { projectId, recordingId, objectIndex });
      if (claims === null) throw mediaNotFound();

      const found = await deps.loadRecordingFile(projectId, recordingId, objectIndex);
      if (found === null) throw mediaNotFound();
      const state = effectiveFileState(found.record, found.file);
      if (state.kind !== 'stored') throw mediaNotFound();
      const info = await deps.storage.head(state.storageKey);
      if (info === null) {
        await recordObjectMissing(
          { append: deps.append, now },
          { log: request.log },
          found.record,
          objectIndex,
        );
        throw mediaNotFound();
      }

      const range = parseRange(request.headers.range, info.bytes);
      reply.header('accept-ranges', 'bytes');
      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-content-type-options', 'nosniff');
      if (range.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${info.bytes}`);
        return reply.status(416).send({
          success: false,
          error: { code: 'RANGE_NOT_SATISFIABLE', message: 'Range not satisfiable' },
        });
      }
      const contentType = found.file.contentType ?? info.contentType ?? 'application/octet-stream';
      reply.header('content-type', contentType);
      reply.header('content-disposition', contentDisposition(disposition, found.file.fileName));
      const served = range.kind === 'range' ? range.range : { start: 0, end: info.bytes - 1 };
      if (range.kind === 'range') {
        reply.status(206);
        reply.header('content-range', `bytes ${served.start}-${served.end}/${info.bytes}`);
      }
      reply.header('content-length', String(Math.max(0, served.end - served.start + 1)));
      if (request.method === 'HEAD') return reply.send();

      let media: Awaited<ReturnType<typeof deps.storage.read>>;
      try {
        media = await deps.storage.read(state.storageKey, range.kind === 'range' ? range.range : undefined);
      } catch (err) {
        if (err instanceof MediaObjectMissingError) throw mediaNotFound();
        throw err;
      }
      try {
        await deps.append(auditStream(projectId), [
          toAppend('AuditRecorded', {
            projectId,
            action: 'recording:media_content_streamed',
            principal: { kind: 'media_token', id: mediaTokenId(token) },
            resource: { type: 'recording', id: recordingId },
            content: { recordingId, objectIndex, disposition },
            at: now().toISOString(),
          }),
        ]);
      } catch (err) {
        // Nothing leaves unaudited.
        (media.stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        throw err;
      }
      return reply.send(media.stream);
    },
  });
}

/**
 * The audit principal of a token-bearing request: a digest that tells requests with the same
 * token together, and that neither is the token nor leads back to it (a different hash domain
 * from the token store's key, so it does not name a stored entry either).
 */
export function mediaTokenId(token: string): string {
  return `mt_${createHash('sha256').update(`audit:${token}`).digest('hex').slice(0, 32)}`;
}
