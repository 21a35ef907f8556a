import type { RtcCredentials } from '../voiceSettings.js';
import type { RoomTokenInput } from './roomTokenInput.js';

/** The tenant-scoped room of a session (Parley tenant and project ids hold no `-`, so names never collide). */
export const roomNameOf = (tenantId: string, projectId: string, sessionId: string): string =>
  `${tenantId}-${projectId}-${sessionId}`;

/** The end user's identity in the room: one per session, so a reconnect replaces the old participant. */
export const roomIdentityOf = (sessionId: string): string => `user-${sessionId}`;

export interface RoomToken {
  token: string;
  roomName: string;
  url: string;
  identity: string;
}

/**
 * A LiveKit access token (its official server SDK) that joins the session's room: roomJoin for that
 * room only, publish and subscribe, `ttlSeconds` long. The room is created by the room service when
 * the holder joins, configured by the token (empty timeout; with `agentName`, an agent dispatch so
 * the agent joins as a participant). Participant metadata carries the Parley ids for the agent.
 */
export async function issueRoomToken(input: {
  credentials: RtcCredentials;
  tenantId: string;
  request: RoomTokenInput;
  ttlSeconds: number;
  /** How long the room lives without participants, seconds. */
  emptyTimeoutSeconds?: number;
}): Promise<RoomToken> {
  const { credentials, tenantId, request } = input;
  const roomName = roomNameOf(tenantId, request.projectId, request.sessionId);
  const identity = roomIdentityOf(request.sessionId);
  const ids = {
    tenantId,
    projectId: request.projectId,
    sessionId: request.sessionId,
    ...(request.agentName === undefined ? {} : { agentName: request.agentName }),
    ...(request.deploymentId === undefined ? {} : { deploymentId: request.deploymentId }),
  };
  // Loaded when first used: `parley start` and the other commands start faster without it.
  const { AccessToken, RoomAgentDispatch, RoomConfiguration } = await import('livekit-server-sdk');
  const token = new AccessToken(credentials.apiKey, credentials.apiSecret, {
    identity,
    ttl: input.ttlSeconds,
    metadata: JSON.stringify(ids),
  });
  token.addGrant({
    roomJoin: true,
    room: roomName,
    canPublish: true,
    canSubscribe: true,
    canPublishData: true,
  });
  token.roomConfig = new RoomConfiguration({
    name: roomName,
    emptyTimeout: input.emptyTimeoutSeconds ?? 300,
    agents:
      request.agentName === undefined
        ? []
        : [new RoomAgentDispatch({ agentName: request.agentName, metadata: JSON.stringify(ids) })],
  });
  return { token: await token.toJwt(), roomName, url: credentials.url, identity };
}
