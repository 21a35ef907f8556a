import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenVerifier } from 'livekit-server-sdk';

/** One Twirp request as the stand-in received it. */
export interface RecordedRoomServiceCall {
  /** `livekit.RoomService/CreateRoom`, `livekit.AgentDispatchService/CreateDispatch`, … */
  method: string;
  body: Record<string, unknown>;
  /** The video grant of the request's bearer JWT, verified with the API secret; null when it did not verify. */
  grant: Record<string, unknown> | null;
}

export interface RoomServiceStandIn {
  /** `http://127.0.0.1:<port>` (the SDK also takes it as `ws://…`). */
  url: string;
  calls: RecordedRoomServiceCall[];
  /** Every following request answers this HTTP status with a Twirp error body (null: answer normally). */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * A local LiveKit room service for tests: the Twirp JSON wire format of RoomService and
 * AgentDispatchService (`POST /twirp/livekit.<Service>/<Method>`, `Authorization: Bearer <JWT>`
 * signed with the API secret). Rooms and dispatches are kept in memory; every call is recorded.
 */
export async function startRoomServiceStandIn(credentials: {
  apiKey: string;
  apiSecret: string;
}): Promise<RoomServiceStandIn> {
  const calls: RecordedRoomServiceCall[] = [];
  const rooms = new Map<string, Record<string, unknown>>();
  const dispatches = new Map<string, Array<Record<string, unknown>>>();
  const verifier = new TokenVerifier(credentials.apiKey, credentials.apiSecret);
  let failing: number | null = null;
  let next = 0;

  const answer = (method: string, body: Record<string, unknown>): unknown => {
    const room = String(body.room ?? body.name ?? '');
    switch (method) {
      case 'livekit.RoomService/CreateRoom': {
        const existing = rooms.get(room);
        if (existing) return existing;
        next += 1;
        const created = {
          sid: `RM_${next}`,
          name: room,
          emptyTimeout: body.emptyTimeout ?? 0,
          metadata: body.metadata ?? '',
          creationTime: String(Math.floor(Date.now() / 1000)),
        };
        rooms.set(room, created);
        return created;
      }
      case 'livekit.AgentDispatchService/ListDispatch':
        return { agentDispatches: dispatches.get(room) ?? [] };
      case 'livekit.AgentDispatchService/CreateDispatch': {
        next += 1;
        const dispatch = { id: `AD_${next}`, agentName: body.agentName, room, metadata: body.metadata ?? '' };
        dispatches.set(room, [...(dispatches.get(room) ?? []), dispatch]);
        return dispatch;
      }
      default:
        return null;
    }
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const method = (request.url ?? '').replace(/^\/twirp\//, '');
      const body = await bodyOf(request);
      const auth = request.headers.authorization ?? '';
      let grant: Record<string, unknown> | null = null;
      try {
        const claims = await verifier.verify(auth.replace(/^Bearer /, ''));
        grant = (claims.video ?? {}) as Record<string, unknown>;
      } catch {}
      calls.push({ method, body, grant });
      const reply = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (grant === null) return reply(401, { code: 'unauthenticated', msg: 'invalid token' });
      if (failing !== null) return reply(failing, { code: 'unavailable', msg: 'room service unavailable' });
      const value = request.method === 'POST' ? answer(method, body) : null;
      if (value === null) return reply(404, { code: 'bad_route', msg: `no handler for ${method}` });
      reply(200, value);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failWith(status) {
      failing = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
