import type { JsonValue } from '@parley/events';
import { isParleyError } from '@parley/platform';
import type { HttpToolImplementation } from '../agents/schema.js';
import { renderTemplate, renderUrl, type TemplateContext } from './templates.js';
import type { ToolOutcome } from './toolOutcome.js';

/**
 * The fetch http tools go through: the SSRF-guarded fetch of @parley/channels in production
 * (createGuardedFetch: the URL re-checked at every call against TOOL_HTTP_ALLOWLIST, connections
 * pinned to the checked addresses, no redirects followed).
 */
export type ToolFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface HttpToolCall {
  toolName: string;
  impl: HttpToolImplementation;
  args: Record<string, unknown>;
  context: TemplateContext;
  /** Extra headers (a suspended tool's callback coordinates). */
  extraHeaders?: Record<string, string>;
  signal?: AbortSignal;
}

export interface HttpToolDeps {
  fetch: ToolFetch;
  /** Waits between retries (tests pass a fast one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

function requestOf(call: HttpToolCall): { url: string; init: RequestInit } {
  const { impl, context } = call;
  const url = new URL(renderUrl(impl.url, context));
  for (const [key, value] of Object.entries(impl.query ?? {})) {
    url.searchParams.set(key, renderTemplate(value, context));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [key, value] of Object.entries(impl.headers ?? {})) {
    headers[key.toLowerCase()] = renderTemplate(value, context, { allowSecrets: true });
  }
  const secret = impl.auth === undefined ? undefined : context.secrets?.[impl.auth.secret];
  if (impl.auth !== undefined && secret !== undefined) {
    switch (impl.auth.type) {
      case 'bearer':
        headers.authorization = `Bearer ${secret}`;
        break;
      case 'header':
        headers[impl.auth.name.toLowerCase()] = secret;
        break;
      case 'basic':
        headers.authorization = `Basic ${Buffer.from(`${impl.auth.username}:${secret}`).toString('base64')}`;
        break;
      default: {
        const exhaustive: never = impl.auth;
        throw new Error(`unknown tool auth ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  for (const [key, value] of Object.entries(call.extraHeaders ?? {})) headers[key.toLowerCase()] = value;
  const withBody =
    (impl.body ?? (impl.method === 'GET' || impl.method === 'DELETE' ? 'none' : 'arguments')) === 'arguments';
  if (withBody) headers['content-type'] = 'application/json';
  return {
    url: url.toString(),
    init: { method: impl.method, headers, ...(withBody ? { body: JSON.stringify(call.args) } : {}) },
  };
}

/** The body up to `max` bytes; null when it is longer (the rest is not read). */
async function readBounded(response: Response, max: number): Promise<string | null> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) {
      await response.body.cancel().catch(() => {});
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

const retryAfterMs = (response: Response): number | undefined => {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : undefined;
};

/** An error's name only (a message may hold the URL, which may hold an argument or a host). */
const errorName = (err: unknown): string => (err instanceof Error ? err.name : 'Error');

/**
 * Calls an http tool: the request from its templates, an attempt timeout, retries with exponential
 * backoff and jitter on connection errors, timeouts, 408, 429 (Retry-After honoured) and 5xx, and
 * the response read up to its size limit. A 2xx answers the model with the body (JSON as is, other
 * text as a JSON string); anything else is an error outcome with a code (`http_<status>`,
 * `timeout`, `connection_failed`, `refused`, `response_too_large`). Details for the trace carry the
 * status, the attempts and the duration, never the URL, headers or secrets.
 */
export async function runHttpTool(deps: HttpToolDeps, call: HttpToolCall): Promise<ToolOutcome> {
  const { impl } = call;
  const sleep = deps.sleep ?? defaultSleep;
  const random = deps.random ?? Math.random;
  let request: { url: string; init: RequestInit };
  try {
    request = requestOf(call);
  } catch {
    return { status: 'error', code: 'invalid_url', message: 'the tool URL did not render to a valid URL' };
  }
  const details = (attempts: number, extra: Record<string, JsonValue> = {}) => ({
    method: impl.method,
    attempts,
    ...extra,
  });
  let last: ToolOutcome = { status: 'error', code: 'connection_failed' };
  for (let attempt = 1; attempt <= impl.retries + 1; attempt++) {
    call.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(impl.timeoutMs);
    const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
    let wait: number | undefined;
    try {
      const response = await deps.fetch(request.url, { ...request.init, signal, redirect: 'manual' });
      const body = await readBounded(response, impl.maxResponseBytes);
      if (body === null) {
        return {
          status: 'error',
          code: 'response_too_large',
          details: details(attempt, { statusCode: response.status }),
        };
      }
      if (response.ok) {
        let content: string;
        try {
          content = body.trim() === '' ? '{}' : JSON.stringify(JSON.parse(body));
        } catch {
          content = JSON.stringify(body);
        }
        return { status: 'ok', content, details: details(attempt, { statusCode: response.status }) };
      }
      last = {
        status: 'error',
        code: `http_${response.status}`,
        details: details(attempt, { statusCode: response.status }),
      };
      if (!RETRYABLE_STATUS(response.status)) return last;
      wait = retryAfterMs(response);
    } catch (err) {
      if (call.signal?.aborted) throw call.signal.reason;
      const name = errorName(err);
      if (isParleyError(err, 'CALLBACK_DELIVERY_REFUSED')) {
        // The SSRF guard refused the URL: no retry can change that.
        return {
          status: 'error',
          code: 'refused',
          message: 'the tool URL is not allowed',
          details: details(attempt),
        };
      }
      last = {
        status: 'error',
        code: timeout.aborted || name === 'TimeoutError' ? 'timeout' : 'connection_failed',
        details: details(attempt),
      };
    }
    if (attempt <= impl.retries) {
      const backoff = impl.retryBackoffMs * 2 ** (attempt - 1) * (0.5 + random());
      await sleep(Math.max(backoff, wait ?? 0), call.signal);
    }
  }
  return last;
}
