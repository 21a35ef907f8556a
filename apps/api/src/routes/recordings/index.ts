import type { FastifyPluginAsync } from 'fastify';
import { mediaContentRoute } from './mediaContentRoute.js';
import type { RecordingsRouteOptions } from './options.js';
import { sessionRecordingsRoute } from './sessionRecordingsRoute.js';

export { MEDIA_CONTENT_URL } from './mediaContentRoute.js';
export type { RecordingsRouteOptions, SessionRecordings } from './options.js';

/** The recordings API (spec 000 §4.1) and the proxied media URLs it issues. */
export const recordingsRoutes: FastifyPluginAsync<RecordingsRouteOptions> = async (app, deps) => {
  sessionRecordingsRoute(app, deps);
  mediaContentRoute(app, deps);
};
