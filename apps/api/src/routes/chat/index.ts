import { addRoute, type Caller, errorResponses, HttpError, requireCaller, toErrorReply } from '@parley/http';
import type { TurnRequest, TurnResult, TurnStreamEvent } from '@parley/runtime';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  type ChatTurnBody,
  chatAgentBody,
  chatStreamReply,
  chatTurnBody,
  chatTurnReply,
  endSessionParams,
  endSessionReply,
} from './chatSchemas.js';
import type { ChatRouteOptions } from './options.js';
import { createSessionGate, resolveProject } from './sessionGate.js';
import { HEARTBEAT_MS, openSseStream, type SseStream } from './sse.js';

export { withExecutionQueue } from './executionQueue.js';
export type { ChatRouteOptions, SessionScope } from './options.js';
export { sessionScopeFromLog } from './sessionScopeFromLog.js';
export { formatEvent, HEARTBEAT_MS } from './sse.js';

/** The permission of every conversation endpoint (scope `chat.write`). */
export const CHAT_PERMISSION = 'chat:write';

const turnErrors = {
  400: errorResponses.standard,
  401: errorResponses.authentication,
  403: errorResponses.standard,
  404: errorResponses.standard,
  409: errorResponses.standard,
  429: errorResponses.rateLimitedOrQueueFull,
  502: errorResponses.standard,
} as const;

/**
 * The conversation endpoints of spec 001 §4.3: chat/send, chat/stream (SSE),
 * chat/agent and sessions/{sessionId}/end. Callers: a platform API key with
 * `chat.write`, a user JWT granting it, or an SDK session token (`X-SDK-Token`,
 * its project only, its end user's sessions only) (requireCaller). Response bodies, the
 * SSE events and the error codes are in docs/api.md.
 */
export const chatRoutes: FastifyPluginAsync<ChatRouteOptions> = async (app, options) => {
  const gate = createSessionGate(options.limits);
  // sessions/{id}/end takes no body, yet many clients send `content-type: application/json` on
  // every POST: an empty JSON body is no body here (in this plugin only), not a 400.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else json(request, body as string, done);
  });
  const preHandler = requireCaller({
    verifyApiKey: options.verifyApiKey,
    verifyJwt: options.verifyJwt,
    acceptSdkToken: true,
    verifySdkToken: options.verifySdkToken,
    permission: CHAT_PERMISSION,
  });
  const security: Array<Record<string, string[]>> = [
    { apiKey: [] },
    { bearer: [] },
    { userJwt: [] },
    { sdkToken: [] },
  ];

  /** Resolves the project, admits the message under the limits, runs the turn, settles the limits. */
  async function turn(
    request: FastifyRequest,
    body: ChatTurnBody,
    run: (req: TurnRequest) => Promise<TurnResult>,
    beforeRun?: () => void,
  ): Promise<TurnResult> {
    const caller = request.caller!;
    const projectId = await resolveProject(caller, body, options.sessionScope);
    const admission = await gate.admit(request.log, caller.tenantId, body.sessionId);
    beforeRun?.();
    let result: TurnResult;
    try {
      result = await run(turnRequest(caller, projectId, body));
    } catch (err) {
      await admission.fail();
      throw err;
    }
    await admission.settle(result);
    return result;
  }

  const sendHandler = async (request: FastifyRequest<{ Body: ChatTurnBody }>) => {
    const result = await turn(request, request.body, (req) => options.runtime.runTurn(req));
    return { success: true as const, data: replyData(result) };
  };

  addRoute(app, {
    method: 'POST',
    url: '/api/v1/chat/send',
    summary: 'Send a message and get the full reply',
    description:
      'Synchronous. Sessions are created implicitly on the first message (`projectId`); `sessionId` continues one.',
    tags: ['conversation'],
    operationId: 'chatSend',
    security,
    body: chatTurnBody,
    response: { 200: chatTurnReply, ...turnErrors },
    preHandler,
    handler: sendHandler,
  });

  addRoute(app, {
    method: 'POST',
    url: '/api/v1/chat/agent',
    summary: "Send a message to a project's agent (projectId always given) and get the full reply",
    description: 'As chat/send, with `projectId` required; `agentName` picks the agent of a new session.',
    tags: ['conversation'],
    operationId: 'chatAgent',
    security,
    body: chatAgentBody,
    response: { 200: chatTurnReply, ...turnErrors },
    preHandler,
    handler: sendHandler,
  });

  addRoute(app, {
    method: 'POST',
    url: '/api/v1/chat/stream',
    summary: 'Send a message and stream the reply as Server-Sent Events',
    description:
      'Header `Accept: text/event-stream`. Errors found before the stream starts (auth, validation, limits, unknown ' +
      'session) are ordinary JSON responses; a failure after it started is an `error` event.',
    tags: ['conversation'],
    operationId: 'chatStream',
    security,
    body: chatTurnBody,
    response: { 200: chatStreamReply, 406: errorResponses.standard, ...turnErrors },
    preHandler,
    handler: async (request, reply) => streamTurn(request, reply),
  });

  addRoute(app, {
    method: 'POST',
    url: '/api/v1/sessions/:sessionId/end',
    summary: 'End a session explicitly',
    description: 'No body. Ending a session that has already ended answers 200 with `ended: false`.',
    tags: ['conversation'],
    operationId: 'endSession',
    security,
    params: endSessionParams,
    response: {
      200: endSessionReply,
      400: errorResponses.standard,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      404: errorResponses.standard,
      429: errorResponses.rateLimited,
    },
    preHandler,
    handler: async (request) => {
      const caller = request.caller!;
      const { sessionId } = request.params;
      const projectId = await resolveProject(caller, { sessionId }, options.sessionScope);
      const ended = await options.runtime.endSession(projectId, sessionId, 'api');
      await gate.released(request.log, caller.tenantId, sessionId);
      return { success: true as const, data: { sessionId, ...ended } };
    },
  });

  /**
   * chat/stream. The stream opens lazily, at the first piece of the reply or
   * when the first heartbeat is due: everything the runtime refuses before
   * answering (unknown or ended session, unknown agent or project) is still an
   * ordinary JSON error with its status. After that, a failure is an `error`
   * event. A client that goes away aborts the turn through its AbortSignal.
   */
  async function streamTurn(
    request: FastifyRequest<{ Body: ChatTurnBody }>,
    reply: FastifyReply,
  ): Promise<void> {
    if (!acceptsEventStream(request.headers.accept)) {
      throw new HttpError('NOT_ACCEPTABLE', 406, 'chat/stream answers text/event-stream only');
    }
    if (request.body.channel === 'http') {
      // The manifest's `http` channel answers in one response (supportsStreaming false): chat/send.
      throw new HttpError(
        'VALIDATION_ERROR',
        400,
        'the http channel does not stream: use /api/v1/chat/send',
        {
          details: { field: 'channel' },
        },
      );
    }
    const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    const client = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) client.abort();
    });
    let sse: SseStream | undefined;
    let firstBeat: NodeJS.Timeout | undefined;
    const open = (): SseStream => {
      if (sse !== undefined) return sse;
      clearTimeout(firstBeat);
      reply.hijack();
      sse = openSseStream(reply.raw, {
        headers: { ...(reply.getHeaders() as Record<string, string>), 'x-request-id': request.id },
        heartbeatMs,
      });
      return sse;
    };

    let messageId: string | undefined;
    let streamedText = '';
    let usageSent = false;
    const onEvent = (event: TurnStreamEvent) => {
      switch (event.type) {
        case 'text_delta':
          messageId = event.messageId;
          streamedText += event.delta;
          open().event('chunk', { messageId: event.messageId, text: event.delta, done: false });
          open().event('text_delta', { messageId: event.messageId, delta: event.delta });
          break;
        case 'usage':
          usageSent = true;
          open().event('usage', { inputTokens: event.inputTokens, outputTokens: event.outputTokens });
          break;
      }
    };

    try {
      const result = await turn(
        request,
        request.body,
        (req) => options.runtime.runTurn({ ...req, stream: true }, { signal: client.signal, onEvent }),
        () => {
          firstBeat = setTimeout(() => open().heartbeat(), heartbeatMs);
        },
      );
      const { reply: answer, usage } = result;
      // A reply that was not streamed piece by piece (a guardrail block, a non-streaming provider)
      // still reaches the client through the same events.
      if (streamedText === '' && answer.text !== '') {
        onEvent({ type: 'text_delta', messageId: answer.messageId, delta: answer.text });
      }
      if (!usageSent)
        onEvent({ type: 'usage', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
      const stream = open();
      stream.event('done', {
        messageId: messageId ?? answer.messageId,
        text: answer.text,
        done: true,
        sessionId: result.sessionId,
        ...(answer.actionSet === undefined ? {} : { actionSet: answer.actionSet }),
      });
      stream.event('complete', {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        totalTokens: usage.totalTokens,
        latencyMs: Math.round(result.latencyMs),
        sessionId: result.sessionId,
        ended: result.ended,
      });
      stream.end();
    } catch (err) {
      clearTimeout(firstBeat);
      if (client.signal.aborted) {
        request.log.info('chat stream client went away; turn aborted');
        if (sse === undefined) reply.hijack();
        return;
      }
      // Before the stream opened: the error handler answers with JSON and the error's status.
      if (sse === undefined) throw err;
      const { status, body } = toErrorReply(err, { family: 'platform', requestId: request.id });
      if (status >= 500) request.log.error({ err }, 'chat stream turn failed');
      sse.event('error', { ...(body.error as object), requestId: request.id });
      sse.end();
    }
  }
};

function turnRequest(caller: Caller, projectId: string, body: ChatTurnBody): TurnRequest {
  const channel = body.channel ?? 'api';
  const req: TurnRequest = {
    tenantId: caller.tenantId,
    projectId,
    message: body.message,
    channel,
    channelType: channel,
  };
  if (body.sessionId !== undefined) req.sessionId = body.sessionId;
  if (body.agentName !== undefined) req.agentName = body.agentName;
  if (body.environment !== undefined) req.environment = body.environment;
  if (body.channelUserId !== undefined) req.channelUserId = body.channelUserId;
  // An SDK token speaks for its end user: its `sub` is the session's channelUserId, whatever the body says.
  if (caller.kind === 'sdkToken') req.channelUserId = caller.subject;
  if (body.actionEvent !== undefined) req.actionEvent = body.actionEvent;
  return req;
}

function replyData(result: TurnResult) {
  return {
    sessionId: result.sessionId,
    created: result.created,
    userMessageId: result.userMessageId,
    agentName: result.agentName,
    // The reply's provenance flags (usedFallback, isLlmGenerated) are the callbacks', not this route's.
    reply: {
      messageId: result.reply.messageId,
      text: result.reply.text,
      ...(result.reply.actionSet === undefined ? {} : { actionSet: result.reply.actionSet }),
    },
    usage: result.usage,
    latencyMs: Math.round(result.latencyMs),
    ended: result.ended,
  };
}

/** No Accept header, or one naming text/event-stream, text/* or *\/*. */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .some((type) => type === 'text/event-stream' || type === 'text/*' || type === '*/*');
}
