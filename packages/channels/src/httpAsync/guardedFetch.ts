import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { ParleyError } from '@parley/platform';
import {
  type CallbackAllowlist,
  type CallbackUrlRefusal,
  checkCallbackUrl,
  type LookupFn,
} from './callbackUrl.js';

export interface GuardedFetchOptions {
  allowlist: CallbackAllowlist;
  lookup?: LookupFn;
  /** The whole exchange (lookup, connect, request, response body); default 10,000 ms. */
  timeoutMs?: number;
  /** Response bytes kept; the rest is not read (a receiver's answer only needs its status). Default 64 KiB. */
  maxResponseBytes?: number;
  /** Extra trusted certificate authorities (PEM), e.g. a test's self-signed receiver. Verification stays on. */
  ca?: string | Buffer | (string | Buffer)[];
}

/** A callback URL that failed the check at delivery time; `reason` is the check's refusal. */
export class CallbackDeliveryRefusedError extends ParleyError {
  override readonly name = 'CallbackDeliveryRefusedError';
  constructor(
    readonly reason: CallbackUrlRefusal,
    message: string,
  ) {
    super('CALLBACK_DELIVERY_REFUSED', 500, message);
  }
}

export type GuardedFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  /** Closes the kept-alive connections. */
  close(): void;
};

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const timeoutError = (ms: number): Error => {
  const error = new Error(`callback request timed out after ${ms} ms`);
  error.name = 'TimeoutError';
  return error;
};

/**
 * A fetch for callback deliveries that cannot be turned against the service's own network: every
 * call re-checks the URL (checkCallbackUrl: DNS may have changed since the subscription was saved)
 * and the connection goes only to the addresses that check approved, through a lookup pinned to
 * them, so a second DNS answer between check and connect (DNS rebinding) is never used. Redirects are
 * never followed (a 3xx is returned as is): a redirect could point anywhere. Node's own fetch cannot
 * take a custom lookup without the `undici` package, hence node:http(s).
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };

  const guardedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutError(timeoutMs)), timeoutMs);
    const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const target = input instanceof Request ? input.url : String(input);
      const check = await raceAbort(
        checkCallbackUrl(target, { allowlist: options.allowlist, lookup: options.lookup }),
        controller.signal,
      );
      if (!check.ok) throw new CallbackDeliveryRefusedError(check.reason, check.message);
      const request = new Request(input, init);
      const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      if (body !== undefined) headers['content-length'] = String(body.length);

      const pinned = check.addresses.map((address) => ({ address, family: isIP(address) }));
      const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
        const first = pinned[0];
        if (lookupOptions.all) return (callback as (e: null, all: typeof pinned) => void)(null, pinned);
        if (first === undefined) return callback(new Error('no checked address'), '', 4);
        callback(null, first.address, first.family);
      };
      const isHttps = check.url.protocol === 'https:';
      return await send(isHttps ? https : http, check.url, {
        method: request.method,
        headers,
        lookup,
        agent: isHttps ? agents.https : agents.http,
        signal: controller.signal,
        ...(isHttps && options.ca !== undefined ? { ca: options.ca } : {}),
        body,
        maxResponseBytes,
      });
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  };
  return Object.assign(guardedFetch, {
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}

const raceAbort = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });

interface SendOptions extends https.RequestOptions {
  body: Buffer | undefined;
  maxResponseBytes: number;
}

const send = (
  transport: typeof http | typeof https,
  url: URL,
  { body, maxResponseBytes, ...requestOptions }: SendOptions,
): Promise<Response> =>
  new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const req = transport.request(url, requestOptions, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        if (settled) return;
        settled = true;
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          reject(new Error(`callback receiver answered with an invalid status ${status}`));
          return;
        }
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          try {
            headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
          } catch {
            // A header fetch would refuse is dropped; the status is what a delivery needs.
          }
        }
        const responseBody = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks);
        try {
          resolve(new Response(responseBody, { status, statusText: res.statusMessage ?? '', headers }));
        } catch {
          resolve(new Response(responseBody, { status, headers }));
        }
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxResponseBytes - size;
        if (chunk.length >= room) {
          chunks.push(chunk.subarray(0, room));
          size = maxResponseBytes;
          finish();
          res.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', finish);
      res.on('error', fail);
      res.on('close', () => (res.complete ? finish() : fail(new Error('callback response ended early'))));
    });
    req.on('error', fail);
    req.end(body);
  });
