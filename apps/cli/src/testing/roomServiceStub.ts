import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test-only: a room service that accepts every call the real-time token route makes (Twirp JSON:
 * CreateRoom answers the room, ListDispatch none, CreateDispatch the dispatch), for tests of whole
 * processes that issue room tokens but do not look at the room service (@parley/voice/testing has
 * the stand-in that records and verifies calls).
 */
export async function startRoomServiceStub(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      const answer = request.url?.endsWith('/ListDispatch')
        ? { agentDispatches: [] }
        : request.url?.endsWith('/CreateDispatch')
          ? { id: 'AD_stub', ...body }
          : { name: body.name ?? '' };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
