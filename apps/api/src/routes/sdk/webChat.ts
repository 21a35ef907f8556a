import type { WebSocket } from '@fastify/websocket';
import { sessionStream } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import {
  authenticationFailed,
  CREDENTIALS_MESSAGE,
  HttpError,
  type SdkTokenClaims,
  type SessionLimits,
  type VerifySdkToken,
} from '@parley/http';
import { dottedPath, findUnstorableText, ParleyError, UNSTORABLE_TEXT_MESSAGE } from '@parley/platform';
import { type Runtime, SessionNotFoundError, type TurnRequest } from '@parley/runtime';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, sessionIdSchema } from '../chat/chatSchemas.js';
import type { SessionScope } from '../chat/options.js';
import { createSessionGate } from '../chat/sessionGate.js';

/**
 * The web chat WebSocket (`GET /api/v1/sdk/ws`). It needs @fastify/websocket, registered ONCE in
 * app.ts (buildApp) for every WebSocket route (this one and the voice media stream).
 */
export interface WebChatRouteOptions {
  /** Absent (no SDK_TOKEN_SECRET): the upgrade is answered 503 SDK_NOT_CONFIGURED. */
  verifySdkToken?: VerifySdkToken | undefined;
  runtime: Pick<Runtime, 'runTurn'>;
  /** Where a session lives and who started it (sessionScopeFromLog). */
  sessionScope(sessionId: string): Promise<SessionScope | null>;
  limits: SessionLimits;
  /** The log, to replay a session's replies on `resume` and to find a reply's event id. */
  store: Pick<EventStore, 'readStream'>;
  /** Test clock (token expiry). */
  now?: () => Date;
  /** WebSocket ping interval; a client that has not answered the previous ping is dropped (default 30 s). */
  keepAliveMs?: number;
}

export const WEB_CHAT_PATH = '/api/v1/sdk/ws';
/** The subprotocol a browser offers with its token: `new WebSocket(url, ['parley.sdk.v1', token])`. */
export const WEB_CHAT_SUBPROTOCOL = 'parley.sdk.v1';
/** Sessions of this socket: the channel family of the web widget, over the SDK's WebSocket transport. */
export const WEB_CHAT_CHANNEL = 'web_chat';
export const WEB_CHAT_CHANNEL_TYPE = 'sdk_websocket';
/** Close code when the SDK token expires: get a new one (sdk/init), reconnect and `resume`. */
export const CLOSE_TOKEN_EXPIRED = 4001;
const KEEP_ALIVE_MS = 30_000;
/** Messages waiting for their turn on one socket beyond this are refused. */
const MAX_PENDING = 8;

/** What the client sends (JSON text frames). */
export const webChatClientMessage = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('message'),
    text: z.string().min(1).max(MAX_MESSAGE_CHARS),
    clientMessageId: z.string().min(1).max(128).optional(),
  }),
  z.strictObject({
    type: z.literal('resume'),
    sessionId: sessionIdSchema,
    /** The `eventId` of the last reply the client has; absent: every reply of the session. */
    after: z
      .string()
      .regex(/^\d{1,18}$/, 'an eventId: a reply event number')
      .optional(),
  }),
  z.strictObject({ type: z.literal('ping') }),
]);
export type WebChatClientMessage = z.output<typeof webChatClientMessage>;

/** What the server sends. */
export type WebChatServerMessage =
  | { type: 'ready'; sessionId: string | null }
  | { type: 'typing'; on: boolean }
  | { type: 'text_delta'; messageId: string; delta: string }
  | {
      type: 'reply';
      messageId: string;
      text: string;
      actionSet?: unknown;
      sessionId: string;
      eventId: string;
      clientMessageId?: string;
      ended?: { status: string; containmentType?: string };
    }
  | { type: 'error'; code: string; message: string; clientMessageId?: string; retryAfterMs?: number }
  | { type: 'pong' };

interface Authenticated {
  claims: SdkTokenClaims;
  expiresAt: Date;
}

const authenticated = new WeakMap<FastifyRequest, Authenticated>();
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * The SDK token of an upgrade request. Browsers cannot set headers on a WebSocket: the token comes
 * as the second subprotocol (`Sec-WebSocket-Protocol: parley.sdk.v1, <token>`; the server selects
 * `parley.sdk.v1`, never echoing the token) or as `?token=` (redacted from request logs). Other
 * clients may send `X-SDK-Token`. Two different tokens: refused.
 */
export function tokenOf(request: FastifyRequest): string | undefined | null {
  const found = new Set<string>();
  const protocols = request.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    const [first, second, ...rest] = protocols.split(',').map((p) => p.trim());
    if (first === WEB_CHAT_SUBPROTOCOL && second !== undefined && rest.length === 0) found.add(second);
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (typeof query?.token === 'string') found.add(query.token);
  if (Array.isArray(query?.token)) return null;
  const header = request.headers['x-sdk-token'];
  if (typeof header === 'string') found.add(header.trim());
  if (found.size > 1) return null;
  const [token] = found;
  return token;
}

/**
 * Web chat over a WebSocket (issue 8; spec 001 §2.2 channel `web`, sessions recorded as channel
 * `web_chat`, channelType `sdk_websocket`). Authentication is the SDK session token, checked before
 * the upgrade (401, 403 ORIGIN_NOT_ALLOWED when the Origin is not the token's, 503 without
 * SDK_TOKEN_SECRET; a plain GET: 426). The JSON protocol is in docs/api.md (webChatClientMessage,
 * WebChatServerMessage). Turns of one socket run one after the other; a socket that closes does not
 * abort a running turn: its reply is recorded and a new socket gets it with `resume`.
 */
export const webChatRoutes: FastifyPluginAsync<WebChatRouteOptions> = async (app, options) => {
  const gate = createSessionGate(options.limits);
  const now = options.now ?? (() => new Date());

  const authenticate = async (request: FastifyRequest) => {
    if (!request.ws) {
      throw new HttpError('UPGRADE_REQUIRED', 426, 'This endpoint speaks WebSocket only');
    }
    if (options.verifySdkToken === undefined) {
      throw new HttpError('SDK_NOT_CONFIGURED', 503, 'SDK tokens are not configured');
    }
    const token = tokenOf(request);
    if (token === undefined || token === null || !JWT.test(token)) {
      throw authenticationFailed(CREDENTIALS_MESSAGE);
    }
    const verified = await options.verifySdkToken(token);
    if (!verified.ok) {
      request.log.info({ reason: verified.reason }, 'SDK token refused (web chat)');
      throw authenticationFailed(CREDENTIALS_MESSAGE);
    }
    // A WebSocket is not covered by CORS: a token minted for an origin is good from that origin only.
    const { claims } = verified;
    if (claims.origin !== undefined && request.headers.origin !== claims.origin) {
      throw new HttpError('ORIGIN_NOT_ALLOWED', 403, 'This SDK token is not valid from this origin');
    }
    authenticated.set(request, { claims, expiresAt: verified.expiresAt });
  };

  app.route({
    method: 'GET',
    url: WEB_CHAT_PATH,
    schema: { hide: true },
    preValidation: authenticate,
    handler: async () => {
      throw new HttpError('UPGRADE_REQUIRED', 426, 'This endpoint speaks WebSocket only');
    },
    wsHandler: (socket, request) => {
      const auth = authenticated.get(request);
      if (auth === undefined) {
        socket.close(1011);
        return;
      }
      serve(socket, request, auth);
    },
  });

  function serve(socket: WebSocket, request: FastifyRequest, auth: Authenticated): void {
    const { claims } = auth;
    const log = request.log;
    let sessionId: string | null = null;
    let pending = 0;
    let closed = false;
    let queue: Promise<void> = Promise.resolve();

    const send = (message: WebChatServerMessage) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    };
    const sendError = (err: unknown, clientMessageId?: string) => {
      const reply = errorMessage(err);
      if (reply.code === 'INTERNAL_ERROR') log.error({ err }, 'web chat turn failed');
      send({ ...reply, ...(clientMessageId === undefined ? {} : { clientMessageId }) });
    };

    const lifetime = Math.min(auth.expiresAt.getTime() - now().getTime(), 2 ** 31 - 1);
    const expiry = setTimeout(
      () => socket.close(CLOSE_TOKEN_EXPIRED, 'token expired'),
      Math.max(0, lifetime),
    );
    // Protocol-level pings keep idle proxies from cutting the socket and find clients that vanished.
    let alive = true;
    socket.on('pong', () => {
      alive = true;
    });
    const keepAlive = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, options.keepAliveMs ?? KEEP_ALIVE_MS);
    socket.on('close', () => {
      closed = true;
      clearTimeout(expiry);
      clearInterval(keepAlive);
    });

    socket.on('message', (data, isBinary) => {
      let message: WebChatClientMessage;
      try {
        if (isBinary) throw new Error('binary frame');
        const parsed: unknown = JSON.parse(String(data));
        // Text PostgreSQL cannot store is refused like any invalid message (docs/decisions.md).
        const unstorable = findUnstorableText(parsed);
        if (unstorable !== undefined) {
          const field = dottedPath(unstorable);
          send({ type: 'error', code: 'INVALID_MESSAGE', message: `${field}: ${UNSTORABLE_TEXT_MESSAGE}` });
          return;
        }
        message = webChatClientMessage.parse(parsed);
      } catch (err) {
        const detail = err instanceof z.ZodError ? `: ${z.prettifyError(err).split('\n')[0]}` : '';
        send({ type: 'error', code: 'INVALID_MESSAGE', message: `Not a web chat message${detail}` });
        return;
      }
      if (message.type === 'ping') {
        send({ type: 'pong' });
        return;
      }
      if (pending >= MAX_PENDING) {
        send({
          type: 'error',
          code: 'TOO_MANY_PENDING',
          message: 'Too many messages waiting for a reply on this connection',
          ...(message.type === 'message' && message.clientMessageId !== undefined
            ? { clientMessageId: message.clientMessageId }
            : {}),
        });
        return;
      }
      pending += 1;
      const work = message;
      queue = queue
        .then(async () => {
          // A message queued behind a turn when the socket closed is dropped (never recorded).
          if (closed) return;
          if (work.type === 'message') await turn(work.text, work.clientMessageId);
          else await resume(work.sessionId, work.after);
        })
        .catch((err) => log.error({ err }, 'web chat message failed'))
        .finally(() => {
          pending -= 1;
        });
    });

    async function turn(text: string, clientMessageId: string | undefined): Promise<void> {
      let typing = false;
      try {
        const admission = await gate.admit(log, claims.tenantId, sessionId ?? undefined);
        const req: TurnRequest = {
          tenantId: claims.tenantId,
          projectId: claims.projectId,
          message: text,
          channel: WEB_CHAT_CHANNEL,
          channelType: WEB_CHAT_CHANNEL_TYPE,
          channelUserId: claims.sub,
          stream: true,
          ...(sessionId === null ? {} : { sessionId }),
          ...(clientMessageId === undefined ? {} : { externalMessageId: clientMessageId }),
          ...(claims.channelId === undefined ? {} : { channelMetadata: { sdkChannelId: claims.channelId } }),
        };
        send({ type: 'typing', on: true });
        typing = true;
        let result: Awaited<ReturnType<typeof options.runtime.runTurn>>;
        try {
          result = await options.runtime.runTurn(req, {
            onEvent: (event) => {
              if (event.type === 'text_delta') {
                send({ type: 'text_delta', messageId: event.messageId, delta: event.delta });
              }
            },
          });
        } catch (err) {
          await admission.fail();
          throw err;
        }
        await admission.settle(result);
        // An ended session takes no more messages: the next one starts a new session.
        sessionId = result.ended === null ? result.sessionId : null;
        const eventId = await replyEventId(result.sessionId, result.reply.messageId);
        send({ type: 'typing', on: false });
        typing = false;
        send({
          type: 'reply',
          messageId: result.reply.messageId,
          text: result.reply.text,
          ...(result.reply.actionSet === undefined ? {} : { actionSet: result.reply.actionSet }),
          sessionId: result.sessionId,
          eventId,
          ...(clientMessageId === undefined ? {} : { clientMessageId }),
          ...(result.ended === null
            ? {}
            : {
                ended: {
                  status: result.ended.status,
                  ...(result.ended.containmentType === undefined
                    ? {}
                    : { containmentType: result.ended.containmentType }),
                },
              }),
        });
      } catch (err) {
        if (typing) send({ type: 'typing', on: false });
        sendError(err, clientMessageId);
      }
    }

    /** The stream revision of the AgentReplied recording this reply (the `eventId` clients resume after). */
    async function replyEventId(session: string, messageId: string): Promise<string> {
      for await (const e of options.store.readStream(sessionStream(session), {
        direction: 'backwards',
        maxCount: 50,
      })) {
        if (e.type === 'AgentReplied' && e.data.messageId === messageId) return String(e.revision);
      }
      throw new Error(`reply ${messageId} not found in session ${session}`);
    }

    async function resume(target: string, after: string | undefined): Promise<void> {
      try {
        const scope = await options.sessionScope(target);
        if (
          scope === null ||
          scope.projectId !== claims.projectId ||
          (scope.tenantId !== undefined && scope.tenantId !== claims.tenantId) ||
          scope.channelUserId !== claims.sub
        ) {
          throw new SessionNotFoundError(target);
        }
        let ended = false;
        const from = after === undefined ? 0n : BigInt(after) + 1n;
        for await (const e of options.store.readStream(sessionStream(target), { fromRevision: from })) {
          if (e.type === 'SessionEnded') ended = true;
          if (e.type !== 'AgentReplied') continue;
          const data = e.data as { messageId: string; text: string; actionSet?: unknown };
          send({
            type: 'reply',
            messageId: data.messageId,
            text: data.text,
            ...(data.actionSet === undefined ? {} : { actionSet: data.actionSet }),
            sessionId: target,
            eventId: String(e.revision),
          });
        }
        if (!ended && after !== undefined) ended = await hasEnded(target);
        sessionId = ended ? null : target;
        send({ type: 'ready', sessionId });
      } catch (err) {
        sendError(err);
      }
    }

    async function hasEnded(session: string): Promise<boolean> {
      for await (const e of options.store.readStream(sessionStream(session), { fromRevision: 0n })) {
        if (e.type === 'SessionEnded') return true;
      }
      return false;
    }

    send({ type: 'ready', sessionId: null });
  }
};

/** An error as a protocol `error` message: the platform code; 5xx messages never leave the process. */
export function errorMessage(err: unknown): {
  type: 'error';
  code: string;
  message: string;
  retryAfterMs?: number;
} {
  if (err instanceof ParleyError) {
    const retry = err instanceof HttpError && err.retryAfterMs !== undefined;
    return {
      type: 'error',
      code: err.code,
      message: err.status >= 500 ? 'Internal error' : err.message,
      ...(retry ? { retryAfterMs: (err as HttpError).retryAfterMs as number } : {}),
    };
  }
  return { type: 'error', code: 'INTERNAL_ERROR', message: 'Internal error' };
}
