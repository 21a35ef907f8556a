import type { TokenUsage } from '@parley/events';

/**
 * The LLM provider port: what the turn engine needs from a model, whatever serves it. A provider
 * never throws for a failed call it got an answer about (HTTP error, timeout, broken stream): it
 * returns `finishReason: 'error'` with `statusCode` and `error`, so the call can be recorded as a
 * failed LlmCallRecorded. It rejects only when the caller's `signal` aborts (with the signal's reason).
 */

/** A tool the model may call; `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/** A tool call the model asked for; `arguments` is the JSON text the model produced (may be invalid JSON). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type LlmRole = 'system' | 'user' | 'assistant' | 'tool';

export interface LlmMessage {
  role: LlmRole;
  content: string;
  /** role 'tool': the ToolCall.id this message answers. */
  toolCallId?: string;
  /** role 'assistant': the tool calls the model made in that message. */
  toolCalls?: ToolCall[];
}

export interface LlmRequest {
  model: string;
  messages: LlmMessage[];
  tools?: ToolDefinition[];
  /** Stream the answer: onDelta receives text as it arrives (it is not called when false). */
  stream: boolean;
  /** Aborting rejects complete() with the signal's reason. */
  signal?: AbortSignal;
}

/** Same shape and identities as the events' TokenUsage (see completeUsage in @parley/events). */
export type LlmUsage = TokenUsage;

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'error';

export interface LlmError {
  /** `http_<status>` for HTTP errors, else `timeout`, `connection_failed`, `stream_error`, `incomplete_stream`, `invalid_response`, `scripted_error`. */
  code: string;
  /** Short, provider-supplied or ours; never carries the API key. */
  message: string;
  /** From a 429's Retry-After header, when given. */
  retryAfterSeconds?: number;
}

export interface LlmResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: LlmUsage;
  latencyMs: number;
  /** Time to the first streamed delta (text or tool call); equal to latencyMs when not streamed. */
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  /** Provider HTTP status: 200 on success, 0 when no response came back (timeout, connection error). */
  statusCode: number;
  provider: string;
  /** The model that answered, as the provider reports it (falls back to the requested model). */
  model: string;
  /** Present when finishReason is 'error'. */
  error?: LlmError;
  /** True when the provider reported no usage and the counts are our ~4 characters/token estimate. */
  usageEstimated?: boolean;
}

export interface LlmProvider {
  readonly name: string;
  complete(req: LlmRequest, onDelta?: (text: string) => void): Promise<LlmResponse>;
}

export interface ProviderRegistry {
  /** Throws UnknownProviderError or ProviderNotConfiguredError. */
  get(provider: string): LlmProvider;
  /** Names of the providers get() would return. */
  names(): string[];
}
