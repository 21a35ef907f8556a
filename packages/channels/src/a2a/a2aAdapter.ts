import type { Pool } from '@parley/platform';
import { isRetryableStatus, postJson, str } from '../adapters/shared.js';
import { CallbackDeliveryRefusedError } from '../httpAsync/guardedFetch.js';
import type { InboundAdapter } from '../inbound/pipeline.js';
import type { OutgoingReply, ResolvedConnection, SendResult } from '../types.js';
import type { A2aPushConfig } from './a2aParams.js';
import type { A2aArtifact, A2aMessage, A2aPart } from './a2aProtocol.js';
import { type A2aTaskStore, createA2aTaskStore, type StoredA2aTask, toA2aTask } from './a2aTaskStore.js';

export const A2A_CHANNEL_TYPE = 'a2a';
/** The header that carries the client's pushNotificationConfig.token (A2A 0.3 push notifications). */
export const A2A_NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';
/** One push notification POST may take this long before it counts as a (retryable) failure. */
export const A2A_PUSH_TIMEOUT_MS = 10_000;

export interface A2aAdapterOptions {
  /** The task store's database (a2a_tasks); the adapter writes replies there instead of calling a platform. */
  pool: Pool;
  pushTimeoutMs?: number;
  /**
   * The fetch push notifications go through. Deployments pass the callback guard
   * (`createGuardedFetch`: no private, loopback or link-local addresses unless allowlisted, DNS
   * pinned); absent: the channel's own fetch (tests).
   */
  pushFetch?: typeof fetch;
}

export type A2aAdapter = InboundAdapter & {
  readonly tasks: A2aTaskStore;
  transformOutput(reply: OutgoingReply): A2aPart[];
};

/** The channel metadata of an A2A inbound message: which task and conversation the reply belongs to. */
export interface A2aChannelMetadata {
  taskId: string;
  contextId: string;
  /** message.metadata.history as received (forwarded history of a remote handoff). */
  history?: unknown[];
}

/**
 * Whether a push notification URL may be called for this connection: https always; plain http only
 * when the connection's settings say `allowHttpPushUrls: true` (local development, tests).
 */
export const pushUrlAllowed = (url: string, connection: Pick<ResolvedConnection, 'settings'>): boolean => {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || (protocol === 'http:' && connection.settings.allowHttpPushUrls === true);
  } catch {
    return false;
  }
};

/** The agent's reply as A2A parts: the text, then an ACTION_SET (or other rich content) as a data part. */
export function replyParts(reply: OutgoingReply): A2aPart[] {
  const parts: A2aPart[] = [{ kind: 'text', text: reply.text }];
  if (reply.actionSet !== undefined) {
    parts.push({
      kind: 'data',
      data: { actionSet: reply.actionSet as unknown as Record<string, unknown> },
      metadata: { type: 'ACTION_SET' },
    });
  }
  if (reply.richContent !== undefined) parts.push({ kind: 'data', data: reply.richContent });
  return parts;
}

function pushHeaders(push: A2aPushConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (push.token !== undefined) headers[A2A_NOTIFICATION_TOKEN_HEADER] = push.token;
  const auth = push.authentication;
  if (auth?.credentials !== undefined && auth.schemes.some((s) => s.toLowerCase() === 'bearer')) {
    headers.authorization = `Bearer ${auth.credentials}`;
  }
  return headers;
}

/**
 * The `a2a` channel (spec 001 §2.2: API ingress, async queue delivery). Ingress is the A2A JSON-RPC
 * route (apps/api/src/routes/a2a), which enqueues through the inbound pipeline's `deliver`; there is
 * no webhook, so `verifyRequest` refuses every webhook call. Delivery is the task store: the reply
 * completes the task (status message and an artifact), and when the client gave a
 * pushNotificationConfig the task is POSTed to its URL (5xx, 429 and network failures retried).
 * The typing indicator, which the worker sends when the turn starts, moves the task to `working`.
 */
export function createA2aAdapter(options: A2aAdapterOptions): A2aAdapter {
  const tasks = createA2aTaskStore(options.pool);
  const timeoutMs = options.pushTimeoutMs ?? A2A_PUSH_TIMEOUT_MS;

  async function push(
    task: StoredA2aTask,
    config: A2aPushConfig,
    fetchFn: typeof fetch,
  ): Promise<SendResult> {
    let refused: CallbackDeliveryRefusedError | undefined;
    const timed: typeof fetch = (input, init) =>
      fetchFn(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }).catch((err: unknown) => {
        if (err instanceof CallbackDeliveryRefusedError) refused = err;
        throw err;
      });
    const response = await postJson(timed, config.url, toA2aTask(task), pushHeaders(config));
    // The guard refused the URL (a private or unresolvable address): retrying cannot help.
    if (refused !== undefined)
      return { ok: false, retryable: false, error: `a2a push notification: URL refused (${refused.reason})` };
    if (response.status >= 200 && response.status < 300) {
      await tasks.markPushed(task.id);
      return { ok: true, externalMessageId: task.id };
    }
    // The URL is the client's and may carry secrets: the error names the status only.
    return {
      ok: false,
      retryable: isRetryableStatus(response.status),
      error:
        response.status === 0
          ? 'a2a push notification: network error'
          : `a2a push notification: HTTP ${response.status}`,
      ...(response.status === 0 ? {} : { status: response.status }),
    };
  }

  return {
    channelType: A2A_CHANNEL_TYPE,
    tasks,
    verifyRequest: () => false,
    parseIncoming: () => [],
    transformOutput: replyParts,

    async sendTypingIndicator(_connection, _key, metadata) {
      const taskId = str(metadata.taskId);
      if (taskId !== undefined) await tasks.markWorking(taskId);
    },

    async sendResponse(message, connection, http) {
      const taskId = str(message.metadata.taskId);
      const contextId = str(message.metadata.contextId) ?? message.externalSessionKey;
      if (taskId === undefined)
        return { ok: false, retryable: false, error: 'a2a: the message names no task' };
      const parts = Array.isArray(message.channelOutput)
        ? (message.channelOutput as A2aPart[])
        : replyParts(message.reply);
      const reply: A2aMessage = {
        kind: 'message',
        role: 'agent',
        messageId: message.messageId,
        taskId,
        contextId,
        parts,
      };
      const artifacts: A2aArtifact[] = [{ artifactId: message.messageId, name: 'reply', parts }];
      const task = await tasks.complete(connection.id, taskId, reply, artifacts);
      if (task === null) return { ok: false, retryable: false, error: 'a2a: task not found' };
      // A task canceled before its turn ran keeps its state; the reply has nowhere to go.
      if (task.state !== 'completed') return { ok: true, externalMessageId: task.id };
      if (task.push === null || task.pushedAt !== null) return { ok: true, externalMessageId: task.id };
      if (!pushUrlAllowed(task.push.url, connection)) {
        return { ok: false, retryable: false, error: 'a2a push notification: URL not allowed' };
      }
      return push(task, task.push, options.pushFetch ?? http.fetch);
    },
  };
}
