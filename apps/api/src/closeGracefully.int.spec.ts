import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { closeGracefully } from './closeGracefully.js';

/** One request on a keep-alive agent (the connection stays open after the answer, as clients keep it). */
function get(
  port: number,
  path: string,
  agent: Agent,
): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a graceful stop with a request in flight', () => {
  it('answers it, then ends its kept-alive connection instead of waiting for the keep-alive timeout', async () => {
    const app = await buildApp({
      logger: silentLogger(),
      readiness: {
        // The readiness check is the request in flight when the stop begins.
        database: () => new Promise((resolve) => setTimeout(() => resolve(true), 300)),
        pendingMigrations: async () => [],
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      const inFlight = get(port, '/readyz', agent);
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      const closed = closeGracefully(app);
      expect(await inFlight).toMatchObject({ status: 200 });
      await closed;
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      agent.destroy();
    }
  }, 10_000);
});
