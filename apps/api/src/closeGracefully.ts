import type { FastifyInstance } from 'fastify';

/**
 * Closes the app as a graceful stop should: no new connections, requests in flight finish, then
 * every connection ends. server.close() ends only the connections idle at that moment; one whose
 * response was still being written stays open as keep-alive afterwards (Fastify's keepAliveTimeout:
 * 72 s) and holds the close until close-with-grace kills the process. Reaping the idle ones until the
 * close completes ends a stop within moments of its last response.
 */
export async function closeGracefully(app: FastifyInstance, reapEveryMs = 100): Promise<void> {
  const reaper = setInterval(() => app.server.closeIdleConnections(), reapEveryMs);
  try {
    await app.close();
  } finally {
    clearInterval(reaper);
  }
}
