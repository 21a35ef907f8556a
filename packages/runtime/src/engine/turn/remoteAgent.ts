import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/platform';
import { z } from 'zod';
import type { RemoteAgent } from '../../agents/schema.js';
import type { LlmMessage } from '../../providers/types.js';
import type { ToolFetch } from '../../tools/httpTool.js';

/** A remote agent that did not answer (HTTP, JSON-RPC or A2A failure, timeout). */
export class RemoteAgentFailedError extends ParleyError {
  constructor(
    readonly agentName: string,
    readonly reason: string,
  ) {
    super('REMOTE_AGENT_FAILED', 502, `the remote agent ${agentName} did not answer (${reason})`, {
      details: { agentName, reason },
    });
    this.name = 'RemoteAgentFailedError';
  }
}

/** One entry of `message.metadata.history` (spec 001 §6): the conversation forwarded on a remote handoff. */
export interface ForwardedMessage {
  role: 'user' | 'agent';
  text: string;
}

const partsSchema = z.array(z.object({ kind: z.string(), text: z.string().optional() }).loose());
const messageSchema = z.object({ kind: z.literal('message').optional(), parts: partsSchema }).loose();
const resultSchema = z.union([
  z
    .object({
      kind: z.literal('task'),
      status: z.object({ state: z.string(), message: messageSchema.optional() }).loose(),
      artifacts: z.array(z.object({ parts: partsSchema }).loose()).optional(),
    })
    .loose(),
  messageSchema,
]);
const rpcSchema = z.object({
  result: resultSchema.optional(),
  error: z.object({ code: z.number(), message: z.string() }).loose().optional(),
});

const textOf = (parts: z.infer<typeof partsSchema>): string =>
  parts
    .filter((p) => p.kind === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');

/** The history the remote agent gets: user and agent messages, oldest first, tool traffic left out. */
export function forwardedHistory(messages: readonly LlmMessage[]): ForwardedMessage[] {
  return messages.flatMap((m): ForwardedMessage[] => {
    if (m.role === 'user' && m.content !== '') return [{ role: 'user', text: m.content }];
    if (m.role === 'assistant' && m.content !== '') return [{ role: 'agent', text: m.content }];
    return [];
  });
}

/** At most this many history entries are forwarded (the newest), as Parley's own A2A route accepts. */
export const FORWARDED_HISTORY_MAX = 100;

/**
 * Sends the user's message to a remote agent over A2A (JSON-RPC 2.0 `message/send`, blocking), the
 * conversation so far in `message.metadata.history`, the session as `contextId`; answers with the
 * reply's text (the task's status message, else its artifacts, or a direct message).
 */
export async function askRemoteAgent(
  fetch: ToolFetch,
  remote: RemoteAgent,
  input: {
    text: string;
    history: ForwardedMessage[];
    contextId: string;
    bearer?: string;
    signal?: AbortSignal;
  },
): Promise<string> {
  const body = {
    jsonrpc: '2.0',
    id: randomUUID(),
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: randomUUID(),
        contextId: input.contextId,
        parts: [{ kind: 'text', text: input.text }],
        metadata: { history: input.history.slice(-FORWARDED_HISTORY_MAX) },
      },
      configuration: { blocking: true, acceptedOutputModes: ['text/plain'] },
    },
  };
  let response: Response;
  try {
    response = await fetch(remote.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(input.bearer === undefined ? {} : { authorization: `Bearer ${input.bearer}` }),
      },
      body: JSON.stringify(body),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    });
  } catch (err) {
    if (input.signal?.aborted) throw input.signal.reason;
    throw new RemoteAgentFailedError(remote.name, err instanceof Error ? err.name : 'connection_failed');
  }
  if (!response.ok) throw new RemoteAgentFailedError(remote.name, `http_${response.status}`);
  const parsed = rpcSchema.safeParse(await response.json().catch(() => null));
  if (!parsed.success) throw new RemoteAgentFailedError(remote.name, 'invalid_response');
  const { result, error } = parsed.data;
  if (error !== undefined || result === undefined) {
    throw new RemoteAgentFailedError(
      remote.name,
      error === undefined ? 'invalid_response' : `rpc_${error.code}`,
    );
  }
  if ('status' in result && result.kind === 'task') {
    if (result.status.state === 'failed' || result.status.state === 'rejected') {
      throw new RemoteAgentFailedError(remote.name, `task_${result.status.state}`);
    }
    const fromStatus = result.status.message === undefined ? '' : textOf(result.status.message.parts);
    if (fromStatus !== '') return fromStatus;
    return (result.artifacts ?? []).map((a) => textOf(a.parts)).join('\n');
  }
  return textOf((result as z.infer<typeof messageSchema>).parts);
}
