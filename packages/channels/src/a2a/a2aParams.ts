import { jsonObjectSchema } from '@parley/events';
import { dottedPath, findUnstorableText, UNSTORABLE_TEXT_MESSAGE } from '@parley/platform';
import { z } from 'zod';
import type { ForwardedTurn } from '../types.js';
import { A2A_ERRORS, type A2aMessage, type JsonRpcError, rpcError } from './a2aProtocol.js';

/** Longest user message the agent gets, in characters (the chat endpoints' limit). */
export const A2A_MAX_TEXT_CHARS = 32_000;
/** Forwarded history (message.metadata.history): entries and serialized bytes. */
export const A2A_HISTORY_LIMITS = Object.freeze({ maxEntries: 100, maxBytes: 65_536 });

const idString = z.string().min(1).max(256);
const partMetadata = z.record(z.string(), z.unknown()).optional();

const partSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), metadata: partMetadata }),
  z.object({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()), metadata: partMetadata }),
  z.object({ kind: z.literal('file'), file: z.record(z.string(), z.unknown()), metadata: partMetadata }),
]);

const userMessageSchema = z.object({
  // A2A 0.3 always sends it; a client that leaves it out still means a message.
  kind: z.literal('message').optional(),
  role: z.literal('user', { error: "message.role must be 'user'" }),
  parts: z.array(partSchema).min(1).max(100),
  messageId: idString,
  contextId: idString.optional(),
  taskId: idString.optional(),
  referenceTaskIds: z.array(idString).max(100).optional(),
  extensions: z.array(z.string().max(2048)).max(50).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/**
 * One entry of a forwarded history: Parley's own form (`{ role, text }`, what a Parley remote
 * handoff sends) or an A2A Message (`{ role, parts }`, its text parts joined by newlines); `agent`
 * is the model's `assistant`. Other roles are refused.
 */
const historyEntrySchema = z.union([
  z.looseObject({ role: z.enum(['user', 'agent']), text: z.string() }),
  z
    .looseObject({
      role: z.enum(['user', 'agent']),
      parts: z.array(z.looseObject({ kind: z.string(), text: z.string().optional() })).max(100),
    })
    .transform((m) => ({
      role: m.role,
      text: m.parts
        .filter((p) => p.kind === 'text' && typeof p.text === 'string')
        .map((p) => p.text)
        .join('\n'),
    })),
]);
const historyEntriesSchema = z.array(
  historyEntrySchema.transform((entry): ForwardedTurn => ({ role: entry.role, text: entry.text })),
);

const pushConfigSchema = z.object({
  url: z.url({ protocol: /^https?$/, error: 'pushNotificationConfig.url must be an http(s) URL' }).max(2048),
  token: z.string().min(1).max(1024).optional(),
  id: z.string().max(256).optional(),
  authentication: z
    .object({ schemes: z.array(z.string().max(64)).max(10), credentials: z.string().max(4096).optional() })
    .optional(),
});
export type A2aPushConfig = z.infer<typeof pushConfigSchema>;

const sendParamsSchema = z.object({
  message: userMessageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string().max(256)).max(50).optional(),
      historyLength: z.int().min(0).optional(),
      pushNotificationConfig: pushConfigSchema.optional(),
      blocking: z.boolean().optional(),
    })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const taskQuerySchema = z.object({ id: idString, historyLength: z.int().min(0).optional() });
const taskIdSchema = z.object({ id: idString });

/**
 * Validates turn-scoped message metadata (@parley/runtime's messageMetadataSchema, injected: this
 * package does not depend on the runtime).
 */
export type MessageMetadataValidator = (
  value: unknown,
) => { success: true; data: Record<string, unknown> } | { success: false; error: z.ZodError };

/** A valid message/send, ready to become a task and an inbound message. */
export interface A2aSendRequest {
  /** The user message as received (stored as the task's first history entry). */
  message: A2aMessage;
  messageId: string;
  /** The conversation; absent: a new one (the caller generates it). */
  contextId?: string;
  /** A task the client means to continue. */
  taskId?: string;
  /** What the agent reads: text parts, and data parts as JSON, one per line. */
  text: string;
  /** message.metadata.messageMetadata, validated: the agent reads it during this turn only. */
  messageMetadata?: Record<string, unknown>;
  /** message.metadata.history (forwarded history of a remote handoff) as received: kept in channel metadata. */
  history?: unknown[];
  /** The same history as the agent reads it: `{ role, text }` per message, blank ones left out. */
  forwardedHistory?: ForwardedTurn[];
  push?: A2aPushConfig;
  blocking: boolean;
  historyLength?: number;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: JsonRpcError };

function issuesOf(error: z.ZodError, prefix: readonly (string | number)[] = []): unknown {
  return {
    issues: error.issues.slice(0, 20).map((issue) => ({
      path: [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))].join('.'),
      code: issue.code,
      message: issue.message,
    })),
  };
}

const invalidParams = (message: string, data?: unknown): { ok: false; error: JsonRpcError } => ({
  ok: false,
  error: rpcError(A2A_ERRORS.invalidParams, message, data),
});

/** The text the agent reads: text parts as they are, data parts as JSON; file parts are refused earlier. */
function textOf(parts: readonly z.infer<typeof partSchema>[]): string {
  return parts
    .map((part) => (part.kind === 'text' ? part.text : part.kind === 'data' ? JSON.stringify(part.data) : ''))
    .join('\n');
}

/**
 * message/send params (A2A MessageSendParams). -32602 with zod's issues for anything malformed,
 * including invalid messageMetadata and a non-array history; -32005 for file parts (the agent
 * reads text and JSON only).
 */
export function parseSendParams(
  params: Record<string, unknown>,
  validateMessageMetadata: MessageMetadataValidator,
): Parsed<A2aSendRequest> {
  const parsed = sendParamsSchema.safeParse(params);
  if (!parsed.success) return invalidParams('Invalid message/send params', issuesOf(parsed.error));
  const { message, configuration } = parsed.data;
  const unstorable = findUnstorableText(parsed.data);
  if (unstorable !== undefined) return invalidParams(`${dottedPath(unstorable)}: ${UNSTORABLE_TEXT_MESSAGE}`);

  if (message.parts.some((part) => part.kind === 'file')) {
    return {
      ok: false,
      error: rpcError(
        A2A_ERRORS.contentTypeNotSupported,
        'File parts are not supported: send text or data parts',
      ),
    };
  }
  const text = textOf(message.parts);
  if (text.trim() === '') return invalidParams('The message has no text');
  if (text.length > A2A_MAX_TEXT_CHARS) {
    return invalidParams(`The message text is longer than ${A2A_MAX_TEXT_CHARS} characters`);
  }

  const metadata = message.metadata ?? {};
  let messageMetadata: Record<string, unknown> | undefined;
  if (metadata.messageMetadata !== undefined) {
    const checked = validateMessageMetadata(metadata.messageMetadata);
    if (!checked.success) {
      return invalidParams(
        'Invalid message.metadata.messageMetadata',
        issuesOf(checked.error, ['message', 'metadata', 'messageMetadata']),
      );
    }
    messageMetadata = checked.data;
  }
  let history: unknown[] | undefined;
  let forwardedHistory: ForwardedTurn[] | undefined;
  if (metadata.history !== undefined) {
    const raw = metadata.history;
    if (
      Array.isArray(raw) &&
      (raw.length > A2A_HISTORY_LIMITS.maxEntries ||
        Buffer.byteLength(JSON.stringify(raw), 'utf8') > A2A_HISTORY_LIMITS.maxBytes)
    ) {
      return invalidParams(
        `message.metadata.history holds at most ${A2A_HISTORY_LIMITS.maxEntries} entries and ${A2A_HISTORY_LIMITS.maxBytes} bytes`,
      );
    }
    // Entries are recorded on MessageReceived (channel metadata): JSON objects as the event log takes them.
    const entries = z.array(jsonObjectSchema).safeParse(raw);
    if (!entries.success) {
      return invalidParams(
        'message.metadata.history must be an array of messages',
        issuesOf(entries.error, ['message', 'metadata', 'history']),
      );
    }
    history = entries.data;
    const turns = historyEntriesSchema.safeParse(raw);
    if (!turns.success) {
      return invalidParams(
        "message.metadata.history entries must be { role: 'user' | 'agent', text } or A2A messages with text parts",
        issuesOf(turns.error, ['message', 'metadata', 'history']),
      );
    }
    forwardedHistory = turns.data.filter((turn) => turn.text.trim() !== '');
  }

  const stored: A2aMessage = { ...message, kind: 'message', role: 'user' };
  return {
    ok: true,
    value: {
      message: stored,
      messageId: message.messageId,
      ...(message.contextId === undefined ? {} : { contextId: message.contextId }),
      ...(message.taskId === undefined ? {} : { taskId: message.taskId }),
      text,
      ...(messageMetadata === undefined ? {} : { messageMetadata }),
      ...(history === undefined ? {} : { history }),
      ...(forwardedHistory === undefined ? {} : { forwardedHistory }),
      ...(configuration?.pushNotificationConfig === undefined
        ? {}
        : { push: configuration.pushNotificationConfig }),
      blocking: configuration?.blocking === true,
      ...(configuration?.historyLength === undefined ? {} : { historyLength: configuration.historyLength }),
    },
  };
}

/** tasks/get params (A2A TaskQueryParams). */
export function parseTaskQuery(
  params: Record<string, unknown>,
): Parsed<{ id: string; historyLength?: number }> {
  const parsed = taskQuerySchema.safeParse(params);
  if (!parsed.success) return invalidParams('Invalid tasks/get params', issuesOf(parsed.error));
  const { id, historyLength } = parsed.data;
  return { ok: true, value: historyLength === undefined ? { id } : { id, historyLength } };
}

/** tasks/cancel params (A2A TaskIdParams). */
export function parseTaskId(params: Record<string, unknown>): Parsed<{ id: string }> {
  const parsed = taskIdSchema.safeParse(params);
  if (!parsed.success) return invalidParams('Invalid tasks/cancel params', issuesOf(parsed.error));
  return { ok: true, value: { id: parsed.data.id } };
}
