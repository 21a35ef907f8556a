import { randomUUID } from 'node:crypto';
import type { Logger } from '@parley/platform';
import { dottedPath, findUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '@parley/platform';
import type { NormalizedMessage, ResolvedConnection } from '../types.js';
import { type A2aChannelMetadata, pushUrlAllowed } from './a2aAdapter.js';
import { type MessageMetadataValidator, parseSendParams, parseTaskId, parseTaskQuery } from './a2aParams.js';
import {
  A2A_ERRORS,
  type JsonRpcId,
  type JsonRpcResponse,
  parseRpcRequest,
  rpcError,
  rpcFailure,
  rpcResult,
} from './a2aProtocol.js';
import { type A2aTaskStore, a2aTaskId, toA2aTask } from './a2aTaskStore.js';

/** Longest wait of a `configuration.blocking: true` message/send unless configured otherwise. */
export const A2A_DEFAULT_BLOCKING_TIMEOUT_MS = 30_000;

export interface A2aRpcDeps {
  tasks: A2aTaskStore;
  /** The inbound pipeline's deliver (dedupe row and job in one transaction). */
  deliver(
    connection: ResolvedConnection,
    messages: readonly NormalizedMessage[],
  ): Promise<{ accepted: number; duplicates: number }>;
  /** @parley/runtime's messageMetadataSchema.safeParse. */
  validateMessageMetadata: MessageMetadataValidator;
  /** Upper bound of a blocking message/send (default A2A_DEFAULT_BLOCKING_TIMEOUT_MS). */
  blockingTimeoutMs?: number;
  logger: Pick<Logger, 'error'>;
  newContextId?: () => string;
  now?: () => Date;
}

type Answer = { result: unknown } | { error: ReturnType<typeof rpcError> };

async function messageSend(
  deps: A2aRpcDeps,
  connection: ResolvedConnection,
  params: Record<string, unknown>,
): Promise<Answer> {
  const parsed = parseSendParams(params, deps.validateMessageMetadata);
  if (!parsed.ok) return { error: parsed.error };
  const send = parsed.value;
  // An inactive connection keeps its configuration but processes nothing (spec 001 §3).
  if (!connection.active) {
    return {
      error: rpcError(A2A_ERRORS.unsupportedOperation, 'This A2A endpoint is inactive', {
        reason: 'connection_inactive',
      }),
    };
  }
  if (send.push !== undefined && !pushUrlAllowed(send.push.url, connection)) {
    return { error: rpcError(A2A_ERRORS.invalidParams, 'pushNotificationConfig.url must be an https URL') };
  }
  const id = a2aTaskId(connection.id, send.messageId);
  if (send.taskId !== undefined && send.taskId !== id) {
    // Each message here is a task of its own, finished once answered: a follow-up goes in a new
    // message of the same contextId.
    const named = await deps.tasks.get(connection.id, send.taskId);
    if (named === null)
      return { error: rpcError(A2A_ERRORS.taskNotFound, 'Task not found', { taskId: send.taskId }) };
    return {
      error: rpcError(
        A2A_ERRORS.unsupportedOperation,
        'This task accepts no further messages: send a new message with its contextId',
        { taskId: send.taskId, state: named.state },
      ),
    };
  }

  const contextId = send.contextId ?? (deps.newContextId ?? randomUUID)();
  const { task, created } = await deps.tasks.create({
    connectionId: connection.id,
    messageId: send.messageId,
    contextId,
    requestMessage: { ...send.message, contextId, taskId: id },
    ...(send.push === undefined ? {} : { push: send.push }),
  });
  // A repeated messageId is the first message's task, in its conversation; deliver below finds the
  // message already queued (or queues it when the first attempt could not).
  const metadata: A2aChannelMetadata = {
    taskId: task.id,
    contextId: task.contextId,
    ...(send.history === undefined ? {} : { history: send.history }),
  };
  const inbound: NormalizedMessage = {
    externalMessageId: send.messageId,
    externalSessionKey: task.contextId,
    text: send.text,
    metadata: { ...metadata },
    timestamp: (deps.now ?? (() => new Date()))().toISOString(),
    ...(send.messageMetadata === undefined ? {} : { messageMetadata: send.messageMetadata }),
    ...(send.forwardedHistory === undefined ? {} : { forwardedHistory: send.forwardedHistory }),
  };
  try {
    await deps.deliver(connection, [inbound]);
  } catch (err) {
    if (created) await deps.tasks.discard(task.id).catch(() => {});
    throw err;
  }
  const shown = send.blocking
    ? await deps.tasks.waitFinished(
        connection.id,
        task.id,
        deps.blockingTimeoutMs ?? A2A_DEFAULT_BLOCKING_TIMEOUT_MS,
      )
    : task;
  return { result: toA2aTask(shown ?? task, send.historyLength) };
}

/**
 * Answers one A2A JSON-RPC request of a connection (the body already parsed as JSON; the caller
 * answers -32700 for a body that was not). Never throws: an unexpected failure is -32603, logged.
 */
export async function answerA2aRpc(
  deps: A2aRpcDeps,
  connection: ResolvedConnection,
  body: unknown,
): Promise<JsonRpcResponse> {
  const request = parseRpcRequest(body);
  if (!request.ok) return rpcFailure(request.id, request.error);
  const { id, params } = request;
  // Text PostgreSQL cannot store never reaches a task lookup or the log (docs/decisions.md).
  const unstorable = findUnstorableText(params);
  if (unstorable !== undefined) {
    const field = dottedPath(['params', ...unstorable]);
    return rpcFailure(id, rpcError(A2A_ERRORS.invalidParams, `${field}: ${UNSTORABLE_TEXT_MESSAGE}`));
  }
  const respond = (answer: Answer): JsonRpcResponse =>
    'error' in answer ? rpcFailure(id, answer.error) : rpcResult(id, answer.result);
  try {
    switch (request.method) {
      case 'message/send':
        return respond(await messageSend(deps, connection, params));
      case 'tasks/get': {
        const query = parseTaskQuery(params);
        if (!query.ok) return rpcFailure(id, query.error);
        const task = await deps.tasks.get(connection.id, query.value.id);
        if (task === null) return taskNotFound(id, query.value.id);
        return rpcResult(id, toA2aTask(task, query.value.historyLength));
      }
      case 'tasks/cancel': {
        const query = parseTaskId(params);
        if (!query.ok) return rpcFailure(id, query.error);
        const outcome = await deps.tasks.cancel(connection.id, query.value.id);
        switch (outcome.kind) {
          case 'not_found':
            return taskNotFound(id, query.value.id);
          case 'not_cancelable':
            return rpcFailure(
              id,
              rpcError(A2A_ERRORS.taskNotCancelable, 'Task cannot be canceled', {
                taskId: outcome.task.id,
                state: outcome.task.state,
              }),
            );
          case 'canceled':
            return rpcResult(id, toA2aTask(outcome.task));
        }
      }
    }
  } catch (err) {
    deps.logger.error({ err, connectionId: connection.id, method: request.method }, 'a2a request failed');
    return rpcFailure(id, rpcError(A2A_ERRORS.internalError, 'Internal error'));
  }
}

const taskNotFound = (id: JsonRpcId, taskId: string): JsonRpcResponse =>
  rpcFailure(id, rpcError(A2A_ERRORS.taskNotFound, 'Task not found', { taskId }));
