import {
  addRoute,
  type Caller,
  callerReaches,
  callerSoleProject,
  errorResponses,
  HttpError,
  mediaResponse,
  projectNotFound,
  requireCaller,
  textBody,
} from '@parley/http';
import { ParleyError, type Pool } from '@parley/platform';
import { SessionEndedError, type TurnRequest, type TurnResult } from '@parley/runtime';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_MESSAGE_CHARS } from '../chat/chatSchemas.js';
import { acceptsEventStream } from '../chat/index.js';
import type { ChatRouteOptions } from '../chat/options.js';
import { createSessionGate } from '../chat/sessionGate.js';
import { openSseStream } from '../chat/sse.js';

/** The conversation endpoints' options, and the pool holding the thread → session map (channel_sessions). */
export interface AgUiRouteOptions extends ChatRouteOptions {
  pool: Pool;
}

export const AG_UI_PATH = '/api/v1/ag-ui/run';
/** Sessions started by AG-UI runs are recorded under this channel (and channel type). */
export const AG_UI_CHANNEL = 'ag_ui';

const id = z.string().min(1).max(256);
const inputContent = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('binary'), mimeType: z.string() }),
]);
const message = z.looseObject({
  id,
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity']),
  content: z.union([z.string(), z.array(inputContent)]).optional(),
});

/**
 * AG-UI's RunAgentInput (the protocol's core types). Parley keeps the conversation itself: only the
 * last message, which must be the user's, is the new input; the earlier messages, `state`, `tools`
 * (frontend tools) and `context` are accepted and not used. `forwardedProps.projectId` picks the
 * project of a caller reaching several (a user JWT).
 */
export const runAgentInput = z.object({
  threadId: id,
  runId: id,
  parentRunId: id.optional(),
  state: z.unknown().optional(),
  messages: z.array(message).min(1).max(1000),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  context: z.array(z.looseObject({ description: z.string(), value: z.string() })).optional(),
  forwardedProps: z.looseObject({ projectId: z.string().min(1).max(128).optional() }).optional(),
});
export type RunAgentInput = z.output<typeof runAgentInput>;

/** The new user message of a run: the last message, a user message with text. */
export function userText(input: RunAgentInput): string {
  const last = input.messages.at(-1);
  const content = last?.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? [])
          .map((part) => (part.type === 'text' ? (part as { text: string }).text : ''))
          .filter((t) => t !== '')
          .join('\n');
  if (last?.role !== 'user' || text.trim() === '' || text.length > MAX_MESSAGE_CHARS) {
    throw new HttpError(
      'VALIDATION_ERROR',
      400,
      `The last message must be a user message with text (at most ${MAX_MESSAGE_CHARS} characters)`,
      { details: { field: 'messages' } },
    );
  }
  return text;
}

/** Where a thread's session is remembered: per project, and per end user for SDK tokens. */
function threadKey(caller: Caller, projectId: string, threadId: string) {
  return {
    connectionId: `ag_ui:${projectId}`,
    key: caller.kind === 'sdkToken' ? `sdk:${caller.subject}:${threadId}` : `platform:${threadId}`,
  };
}

/**
 * AG-UI (spec 001 §1 channel `ag_ui`): `POST /api/v1/ag-ui/run` takes a RunAgentInput and answers
 * Server-Sent Events, one AG-UI event per `data:` line: RUN_STARTED, TEXT_MESSAGE_START,
 * TEXT_MESSAGE_CONTENT (the streamed reply), TEXT_MESSAGE_END, CUSTOM `parley.action_set` when the
 * reply offers one, RUN_FINISHED (`result: { sessionId, messageId, ended }`) or RUN_ERROR. Callers:
 * an SDK token or a platform credential with `chat:write`, as chat/stream. A thread is a Parley
 * session: the first run of a threadId starts one, later runs continue it (a thread whose session
 * ended gets a new one).
 */
export const agUiRoutes: FastifyPluginAsync<AgUiRouteOptions> = async (app, options) => {
  const gate = createSessionGate(options.limits);
  const preHandler = requireCaller({
    verifyApiKey: options.verifyApiKey,
    verifyJwt: options.verifyJwt,
    acceptSdkToken: true,
    verifySdkToken: options.verifySdkToken,
    permission: 'chat:write',
  });

  async function threadSession(caller: Caller, projectId: string, threadId: string): Promise<string | null> {
    const { connectionId, key } = threadKey(caller, projectId, threadId);
    const { rows } = await options.pool.query<{ session_id: string }>(
      'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
      [connectionId, key],
    );
    return rows[0]?.session_id ?? null;
  }

  async function rememberThread(caller: Caller, projectId: string, threadId: string, sessionId: string) {
    const { connectionId, key } = threadKey(caller, projectId, threadId);
    await options.pool.query(
      `insert into channel_sessions (connection_id, external_session_key, session_id) values ($1, $2, $3)
       on conflict (connection_id, external_session_key)
       do update set session_id = excluded.session_id, updated_at = now()`,
      [connectionId, key, sessionId],
    );
  }

  addRoute(app, {
    method: 'POST',
    url: AG_UI_PATH,
    summary: 'Run the agent with AG-UI (RunAgentInput in, AG-UI events out as SSE)',
    description:
      'Errors found before the stream starts (auth, validation, limits, project) are JSON; after RUN_STARTED a ' +
      'failure is a RUN_ERROR event. threadId ↔ Parley session; `RUN_FINISHED.result.sessionId` names it.',
    tags: ['conversation'],
    operationId: 'agUiRun',
    security: [{ apiKey: [] }, { bearer: [] }, { userJwt: [] }, { sdkToken: [] }],
    body: runAgentInput,
    response: {
      200: mediaResponse('A stream of AG-UI events', { 'text/event-stream': textBody }),
      400: errorResponses.standard,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      404: errorResponses.standard,
      406: errorResponses.standard,
      429: errorResponses.rateLimited,
    },
    preHandler,
    handler: async (request, reply) => run(request, reply),
  });

  async function run(request: FastifyRequest<{ Body: RunAgentInput }>, reply: FastifyReply): Promise<void> {
    if (!acceptsEventStream(request.headers.accept)) {
      throw new HttpError('NOT_ACCEPTABLE', 406, 'ag-ui/run answers text/event-stream only');
    }
    const caller = request.caller!;
    const input = request.body;
    const text = userText(input);
    const wanted = input.forwardedProps?.projectId;
    const projectId = wanted ?? callerSoleProject(caller);
    if (projectId === undefined || !callerReaches(caller, projectId)) throw projectNotFound();

    let sessionId = await threadSession(caller, projectId, input.threadId);
    const admission = await gate.admit(request.log, caller.tenantId, sessionId ?? undefined);

    const client = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableEnded) client.abort();
    });
    reply.hijack();
    const sse = openSseStream(reply.raw, {
      headers: { ...(reply.getHeaders() as Record<string, string>), 'x-request-id': request.id },
      heartbeatMs: options.heartbeatMs,
    });
    const emit = (event: Record<string, unknown>) => sse.data({ ...event, timestamp: Date.now() });

    const { threadId, runId } = input;
    emit({
      type: 'RUN_STARTED',
      threadId,
      runId,
      ...(input.parentRunId ? { parentRunId: input.parentRunId } : {}),
    });
    let started: string | undefined;
    const content = (messageId: string, delta: string) => {
      if (delta === '') return;
      if (started === undefined) {
        started = messageId;
        emit({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
      }
      emit({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta });
    };

    const turnRequest = (session: string | null): TurnRequest => ({
      tenantId: caller.tenantId,
      projectId,
      message: text,
      channel: AG_UI_CHANNEL,
      channelType: AG_UI_CHANNEL,
      stream: true,
      externalMessageId: input.messages.at(-1)!.id,
      channelMetadata: { threadId, runId },
      ...(session === null ? {} : { sessionId: session }),
      ...(caller.kind === 'sdkToken' ? { channelUserId: caller.subject } : {}),
    });
    const runOnce = (session: string | null) =>
      options.runtime.runTurn(turnRequest(session), {
        signal: client.signal,
        onEvent: (event) => {
          if (event.type === 'text_delta') content(event.messageId, event.delta);
        },
      });

    try {
      let result: TurnResult;
      try {
        try {
          result = await runOnce(sessionId);
        } catch (err) {
          // The thread's session has ended: the thread goes on in a new session.
          if (!(err instanceof SessionEndedError) || started !== undefined) throw err;
          sessionId = null;
          result = await runOnce(null);
        }
      } catch (err) {
        await admission.fail();
        throw err;
      }
      await admission.settle(result);
      if (result.sessionId !== sessionId) await rememberThread(caller, projectId, threadId, result.sessionId);
      const answer = result.reply;
      if (started === undefined) content(answer.messageId, answer.text);
      if (started !== undefined) emit({ type: 'TEXT_MESSAGE_END', messageId: started });
      if (answer.actionSet !== undefined) {
        emit({ type: 'CUSTOM', name: 'parley.action_set', value: answer.actionSet });
      }
      emit({
        type: 'RUN_FINISHED',
        threadId,
        runId,
        result: {
          sessionId: result.sessionId,
          messageId: answer.messageId,
          ended: result.ended,
        },
      });
    } catch (err) {
      if (client.signal.aborted) {
        request.log.info('ag-ui client went away; run aborted');
      } else {
        const known = err instanceof ParleyError;
        if (!known || err.status >= 500) request.log.error({ err }, 'ag-ui run failed');
        if (started !== undefined) emit({ type: 'TEXT_MESSAGE_END', messageId: started });
        emit({
          type: 'RUN_ERROR',
          message: known && err.status < 500 ? err.message : 'Internal error',
          code: known ? err.code : 'INTERNAL_ERROR',
        });
      }
    } finally {
      sse.end();
    }
  }
};
