import { ParleyError } from '@parley/platform';
import type { RtcCredentials } from '../voiceSettings.js';

/** What the token route asks of the room service (spec 001 §4.5: "creates a tenant-scoped room and may spawn an agent participant"). */
export interface RoomService {
  /**
   * Creates the room (the room service answers an existing room unchanged) and, with `agentName`,
   * dispatches that agent into it unless a dispatch of that agent is there already.
   * Throws RoomServiceUnavailableError when the room service fails or cannot be reached.
   */
  ensureRoom(input: {
    roomName: string;
    emptyTimeoutSeconds: number;
    /** JSON of the Parley ids (tenant, project, session, agent, deployment). */
    metadata: string;
    agentName?: string | undefined;
  }): Promise<{ dispatched: boolean }>;
}

/** 503 ROOM_SERVICE_UNAVAILABLE (docs/decisions.md): the room service refused or did not answer. */
export class RoomServiceUnavailableError extends ParleyError {
  constructor(operation: string, cause: unknown) {
    super('ROOM_SERVICE_UNAVAILABLE', 503, `the real-time room service did not ${operation}; retry later`, {
      cause,
      details: { operation, reason: reasonOf(cause) },
    });
    this.name = 'RoomServiceUnavailableError';
  }
}

/** The vendor's status and message, never its credentials (they are not in either). */
function reasonOf(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const status = (err as { status?: unknown }).status;
    const message = (err as { message?: unknown }).message;
    const text = typeof message === 'string' ? message.slice(0, 200) : 'error';
    return typeof status === 'number' ? `${status} ${text}` : text;
  }
  return String(err).slice(0, 200);
}

/**
 * The room service through LiveKit's official server SDK (RoomServiceClient, AgentDispatchClient:
 * Twirp over HTTP, `POST <url>/twirp/livekit.RoomService/CreateRoom` etc., each request with a
 * JWT signed by the API secret). No region failover (a self-hosted URL has no regions); each call
 * times out after `requestTimeoutSeconds`.
 */
export function liveKitRoomService(
  credentials: RtcCredentials,
  options: { requestTimeoutSeconds?: number } = {},
): RoomService {
  const clientOptions = { requestTimeout: options.requestTimeoutSeconds ?? 5, failover: false };
  const clients = (async () => {
    // Loaded when first used: `parley start` and the other commands start faster without it.
    const { AgentDispatchClient, RoomServiceClient } = await import('livekit-server-sdk');
    const { url, apiKey, apiSecret } = credentials;
    return {
      rooms: new RoomServiceClient(url, apiKey, apiSecret, clientOptions),
      dispatch: new AgentDispatchClient(url, apiKey, apiSecret, clientOptions),
    };
  })();
  const attempt = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw new RoomServiceUnavailableError(operation, err);
    }
  };
  return {
    async ensureRoom(input) {
      const { rooms, dispatch } = await clients;
      await attempt('create the room', () =>
        rooms.createRoom({
          name: input.roomName,
          emptyTimeout: input.emptyTimeoutSeconds,
          metadata: input.metadata,
        }),
      );
      const agentName = input.agentName;
      if (agentName === undefined) return { dispatched: false };
      const existing = await attempt('list the agent dispatches', () =>
        dispatch.listDispatch(input.roomName),
      );
      if (existing.some((d) => d.agentName === agentName)) return { dispatched: false };
      await attempt('dispatch the agent', () =>
        dispatch.createDispatch(input.roomName, agentName, { metadata: input.metadata }),
      );
      return { dispatched: true };
    },
  };
}
