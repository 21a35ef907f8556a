import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in received. */
export interface StandInRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** How the stand-in answers one request: write the vendor's wire answer to `res`. */
export type StandInAnswer = (
  req: IncomingMessage,
  res: ServerResponse,
  received: StandInRequest,
) => void | Promise<void>;

export interface VendorStandIn {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly requests: StandInRequest[];
  /** Answers for the next requests, in order; once used up, `fallback` answers. */
  queue(...answers: StandInAnswer[]): void;
  fallback: StandInAnswer;
  close(): Promise<void>;
}

/** JSON with a status and headers, as the vendor's API sends it. */
export const jsonAnswer =
  (status: number, value: unknown, headers: Record<string, string> = {}): StandInAnswer =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };

/** A server-sent events body written in pieces (each piece flushed before the next); `end: false` drops the connection. */
export const sseAnswer =
  (pieces: Array<string | Uint8Array>, options: { end?: boolean; pauseMs?: number } = {}): StandInAnswer =>
  async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const piece of pieces) {
      res.write(piece);
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 1));
    }
    if (options.end === false) res.destroy();
    else res.end();
  };

/**
 * Test-only: a local HTTP server standing in for an LLM vendor's API (OpenAI chat completions,
 * Anthropic Messages), replaying recorded wire answers in the order queued. It records every
 * request (headers and parsed JSON body) so a test can check what Parley sent.
 */
export async function startVendorStandIn(): Promise<VendorStandIn> {
  const answers: StandInAnswer[] = [];
  const requests: StandInRequest[] = [];
  const standIn = {
    fallback: jsonAnswer(500, { error: { message: 'no answer queued', type: 'server_error' } }),
  } as VendorStandIn;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      text += d;
    });
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text || '{}') as Record<string, unknown>;
      } catch {
        body = { unparsed: text };
      }
      const received = { method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers, body };
      requests.push(received);
      const answer = answers.shift() ?? standIn.fallback;
      Promise.resolve(answer(req, res, received)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(standIn, {
    origin,
    requests,
    queue: (...next: StandInAnswer[]) => {
      answers.push(...next);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
