import { ZERO_USAGE } from './estimateUsage.js';
import type { LlmError, LlmRequest, LlmResponse } from './types.js';

/**
 * What the vendor SDK providers share: a failed call is an answer (LlmProvider's contract), built
 * from the error the SDK threw. Both SDKs (openai, @anthropic-ai/sdk) come from the same generator,
 * so their errors have the same names and fields; they are read by shape, not by class, because
 * each SDK has its own classes.
 */

/** The whole call, every retry included, ends with code `timeout` past this (default 60 s). */
export const DEFAULT_PROVIDER_TIMEOUT_MS = 60_000;
/** Retries the SDKs make themselves on 408, 409, 429, 5xx and connection errors (Retry-After honoured). */
export const DEFAULT_PROVIDER_MAX_RETRIES = 2;

export interface CallClock {
  startedAt: number;
  now: () => number;
}

export interface FailureContext {
  req: LlmRequest;
  provider: string;
  clock: CallClock;
  /** The call's own timeout signal (AbortSignal.timeout of the whole call). */
  timeout: AbortSignal;
  timeoutMs: number;
  redact: (message: string) => string;
}

/** A key in a message (echoed by a server) is never recorded: the configured key and `sk-…` shapes. */
export function createRedactor(apiKey: string | undefined): (message: string) => string {
  return (message) => {
    let out = message;
    if (apiKey) out = out.split(apiKey).join('[redacted]');
    return out.replace(/\bsk-[A-Za-z0-9_*-]{8,}/g, '[redacted]').slice(0, 500);
  };
}

export function failedAnswer(
  ctx: FailureContext,
  statusCode: number,
  error: LlmError,
  partial: Partial<LlmResponse> = {},
): LlmResponse {
  const elapsed = Math.round(ctx.clock.now() - ctx.clock.startedAt);
  return {
    text: '',
    toolCalls: [],
    usage: { ...ZERO_USAGE },
    latencyMs: elapsed,
    timeToFirstTokenMs: elapsed,
    streamingUsed: ctx.req.stream,
    provider: ctx.provider,
    model: ctx.req.model,
    ...partial,
    finishReason: 'error',
    statusCode,
    error: { ...error, message: ctx.redact(error.message) },
  };
}

interface SdkErrorShape {
  name?: unknown;
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  message?: unknown;
}

/** Retry-After as seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null | undefined): number | undefined {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function headerOf(headers: unknown, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  if (typeof headers === 'object' && headers !== null) {
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : null;
  }
  return null;
}

/** The vendor's own message: `{ error: { message } }` (OpenAI), `{ type, error: { message } }` (Anthropic), or the raw body. */
function vendorMessage(e: SdkErrorShape): string {
  const body = e.error;
  if (typeof body === 'string' && body.trim() !== '') return body.trim();
  if (typeof body === 'object' && body !== null) {
    const inner = (body as { error?: unknown; message?: unknown }).error;
    const message =
      typeof inner === 'object' && inner !== null
        ? (inner as { message?: unknown }).message
        : (body as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
  }
  const message = typeof e.message === 'string' ? e.message : 'provider error';
  // Without a JSON body the SDK's message is `<status> <body text>`: the body text is the message.
  return typeof e.status === 'number' ? message.replace(new RegExp(`^${e.status} `), '') : message;
}

/**
 * The failed answer for what the SDK threw. The caller's abort rethrows its reason (the only
 * rejection the port allows); the call's own timeout is `timeout` with the text received so far.
 */
export function answerForThrown(
  ctx: FailureContext,
  err: unknown,
  streamStatus: number | undefined,
  partial: Partial<LlmResponse> = {},
): LlmResponse {
  if (ctx.req.signal?.aborted) throw ctx.req.signal.reason;
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as SdkErrorShape;
  // The SDKs' error classes do not set `name`: their constructor's name tells them apart.
  const ctor = (e as { constructor?: { name?: unknown } }).constructor?.name;
  const name =
    typeof ctor === 'string' && ctor !== 'Object' ? ctor : typeof e.name === 'string' ? e.name : '';
  if (ctx.timeout.aborted || name === 'APIConnectionTimeoutError') {
    return failedAnswer(
      ctx,
      streamStatus ?? 0,
      { code: 'timeout', message: `No complete answer within ${ctx.timeoutMs} ms` },
      partial,
    );
  }
  if (typeof e.status === 'number' && e.status >= 400) {
    const retryAfter = retryAfterSeconds(headerOf(e.headers, 'retry-after'));
    return failedAnswer(
      ctx,
      e.status,
      {
        code: `http_${e.status}`,
        message: vendorMessage(e),
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      },
      partial,
    );
  }
  if (streamStatus !== undefined) {
    // The stream had started (200): an error event inside it (the SDK's APIError carrying the
    // vendor's error object), or the answer cut short (the connection dropped, a truncated event).
    const errorEvent = name === 'APIError' || (typeof e.error === 'object' && e.error !== null);
    return failedAnswer(
      ctx,
      streamStatus,
      errorEvent
        ? { code: 'stream_error', message: vendorMessage(e) }
        : { code: 'incomplete_stream', message: 'The stream ended before the answer did' },
      partial,
    );
  }
  if (name === 'APIConnectionError') {
    return failedAnswer(ctx, 0, { code: 'connection_failed', message: vendorMessage(e) }, partial);
  }
  return failedAnswer(ctx, 0, { code: 'invalid_response', message: vendorMessage(e) }, partial);
}

/**
 * After a stream's loop ended: the caller's abort rethrows, the call's timeout (an SDK stream may
 * end quietly when its signal aborts) is a `timeout` answer with the text so far.
 */
export function stoppedBySignal(
  ctx: FailureContext,
  status: number,
  partial: Partial<LlmResponse>,
): LlmResponse | null {
  if (ctx.req.signal?.aborted) throw ctx.req.signal.reason;
  if (!ctx.timeout.aborted) return null;
  return failedAnswer(
    ctx,
    status,
    { code: 'timeout', message: `No complete answer within ${ctx.timeoutMs} ms` },
    partial,
  );
}

/** The caller's signal and the call's timeout, as one signal for the SDK. */
export function callSignals(
  req: LlmRequest,
  timeoutMs: number,
): { signal: AbortSignal; timeout: AbortSignal } {
  const timeout = AbortSignal.timeout(timeoutMs);
  return { timeout, signal: req.signal === undefined ? timeout : AbortSignal.any([req.signal, timeout]) };
}
