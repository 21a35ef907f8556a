import type { ServerResponse } from 'node:http';

/** Spec 000 §8: streaming endpoints send a `: heartbeat` comment every 15 seconds. */
export const HEARTBEAT_MS = 15_000;

export const HEARTBEAT = ': heartbeat\n\n';

export interface SseStream {
  /** Writes one named event; `data` is one line of JSON. Nothing happens once ended. */
  event(name: string, data: unknown): void;
  /** Writes one unnamed event: a `data:` line holding `payload` as one line of JSON. Nothing happens once ended. */
  data(payload: unknown): void;
  /** Writes a `: heartbeat` comment now (the interval continues). */
  heartbeat(): void;
  /** Ends the response (idempotent). */
  end(): void;
}

/** One event in the text/event-stream format (WHATWG HTML §9.2): `event:` line, `data:` line, blank line. */
export function formatEvent(name: string, data: unknown): string {
  // JSON.stringify never emits a raw line break, so one `data:` line always suffices.
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Starts an SSE response on a raw Node response: status 200, the event-stream
 * headers (no caching, no proxy buffering) plus `headers`, and a heartbeat
 * comment every `heartbeatMs` until the response ends or the client goes away.
 */
export function openSseStream(
  raw: ServerResponse,
  options: { headers: Record<string, string | number | string[]>; heartbeatMs?: number },
): SseStream {
  let ended = false;
  raw.writeHead(200, {
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();

  const write = (text: string) => {
    if (!ended && !raw.destroyed) raw.write(text);
  };
  const timer = setInterval(() => write(HEARTBEAT), options.heartbeatMs ?? HEARTBEAT_MS);
  timer.unref();
  raw.on('close', () => {
    ended = true;
    clearInterval(timer);
  });

  return {
    event: (name, data) => write(formatEvent(name, data)),
    data: (payload) => write(`data: ${JSON.stringify(payload)}\n\n`),
    heartbeat: () => write(HEARTBEAT),
    end() {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      raw.end();
    },
  };
}
