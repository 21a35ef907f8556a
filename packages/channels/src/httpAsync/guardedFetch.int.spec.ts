import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson } from '../adapters/shared.js';
import {
  createSelfSignedCertificate,
  type TestCertificate,
} from '../testing/httpAsync/selfSignedCertificate.js';
import { signCallback, verifyCallbackSignature } from './callbackSignature.js';
import { emptyAllowlist, type LookupFn, parseCallbackAllowlist } from './callbackUrl.js';
import { CallbackDeliveryRefusedError, createGuardedFetch } from './guardedFetch.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A real HTTPS receiver on loopback, self-signed; `answer` decides each response. */
let certificate: TestCertificate;
let server: Server;
let port: number;
let received: Received[];
let answer: (req: Received, res: ServerResponse) => void;

beforeAll(async () => {
  certificate = createSelfSignedCertificate();
  server = createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(entry);
      answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  certificate.remove();
});

beforeEach(() => {
  received = [];
  answer = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"received":true}');
  };
});

/** receiver.test is not in any DNS: a connection can only succeed through the pinned lookup. */
const countingLookup = (addresses: () => string[]) => {
  const calls: string[] = [];
  const lookup: LookupFn = async (hostname) => {
    calls.push(hostname);
    return addresses().map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
};

const loopbackAllowed = parseCallbackAllowlist('127.0.0.0/8');

describe('createGuardedFetch against a real self-signed HTTPS receiver on loopback', () => {
  it('delivers a signed POST to the allowlisted receiver, verifying TLS against the host name', async () => {
    const { lookup, calls } = countingLookup(() => ['127.0.0.1']);
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, lookup, ca: certificate.cert });
    try {
      const body = JSON.stringify({ message_id: 'msg_1', response: 'héllo' });
      const response = await guarded(`https://receiver.test:${port}/hooks/parley?x=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signCallback(body, 'whsec_test') },
        body,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
      expect(received).toHaveLength(1);
      const [delivery] = received as [Received];
      expect(delivery).toMatchObject({ method: 'POST', url: '/hooks/parley?x=1' });
      expect(delivery.headers.host).toBe(`receiver.test:${port}`);
      expect(delivery.body.toString('utf8')).toBe(body);
      expect(
        verifyCallbackSignature({
          body: delivery.body,
          timestamp: delivery.headers['x-parley-timestamp'] as string,
          signature: delivery.headers['x-parley-signature'] as string,
          secret: 'whsec_test',
        }),
      ).toEqual({ ok: true });
      // One lookup per delivery, the guard's own: the connection used the checked address.
      expect(calls).toEqual(['receiver.test']);
    } finally {
      guarded.close();
    }
  });

  it('refuses the loopback receiver without an allowlist entry, before connecting', async () => {
    const guarded = createGuardedFetch({ allowlist: emptyAllowlist, ca: certificate.cert });
    try {
      const refused = guarded(`https://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
      await expect(refused).rejects.toBeInstanceOf(CallbackDeliveryRefusedError);
      await expect(refused).rejects.toMatchObject({ reason: 'forbidden_address' });
      expect(received).toHaveLength(0);
    } finally {
      guarded.close();
    }
  });

  it('checks again at every delivery: a host that now resolves to a private address is refused', async () => {
    let addresses = ['127.0.0.1'];
    const { lookup } = countingLookup(() => addresses);
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, lookup, ca: certificate.cert });
    try {
      expect((await guarded(`https://receiver.test:${port}/`, { method: 'POST', body: '{}' })).status).toBe(
        200,
      );
      addresses = ['127.0.0.1', '10.0.0.8'];
      await expect(
        guarded(`https://receiver.test:${port}/`, { method: 'POST', body: '{}' }),
      ).rejects.toMatchObject({
        reason: 'forbidden_address',
      });
      expect(received).toHaveLength(1);
    } finally {
      guarded.close();
    }
  });

  it('keeps certificate verification on: the self-signed receiver fails without its CA', async () => {
    const { lookup } = countingLookup(() => ['127.0.0.1']);
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, lookup });
    try {
      await expect(
        guarded(`https://receiver.test:${port}/`, { method: 'POST', body: '{}' }),
      ).rejects.toMatchObject({
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
      expect(received).toHaveLength(0);
    } finally {
      guarded.close();
    }
  });

  it('does not follow a redirect (it could point anywhere): the 3xx comes back as it is', async () => {
    answer = (_req, res) => {
      res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' });
      res.end();
    };
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, ca: certificate.cert });
    try {
      const response = await guarded(`https://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('https://169.254.169.254/latest/meta-data');
      expect(received).toHaveLength(1);
    } finally {
      guarded.close();
    }
  });

  it('gives up after the timeout when the receiver does not answer', async () => {
    answer = () => {};
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, ca: certificate.cert, timeoutMs: 300 });
    try {
      const started = Date.now();
      await expect(
        guarded(`https://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }),
      ).rejects.toMatchObject({
        name: 'TimeoutError',
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      guarded.close();
    }
  });

  it('honours the caller abort signal', async () => {
    answer = () => {};
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, ca: certificate.cert });
    try {
      const controller = new AbortController();
      const pending = guarded(`https://127.0.0.1:${port}/`, {
        method: 'POST',
        body: '{}',
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error('stopped by caller')), 100);
      await expect(pending).rejects.toThrow('stopped by caller');
    } finally {
      guarded.close();
    }
  });

  it('keeps at most maxResponseBytes of a large answer, and handles a body-less status', async () => {
    answer = (req, res) => {
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('x'.repeat(1024 * 1024));
    };
    const guarded = createGuardedFetch({
      allowlist: loopbackAllowed,
      ca: certificate.cert,
      maxResponseBytes: 1000,
    });
    try {
      const large = await guarded(`https://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
      expect(large.status).toBe(500);
      expect((await large.text()).length).toBe(1000);
      const empty = await guarded(`https://127.0.0.1:${port}/empty`, { method: 'POST', body: '{}' });
      expect(empty.status).toBe(204);
      expect(await empty.text()).toBe('');
    } finally {
      guarded.close();
    }
  });

  it('refuses a URL with credentials or plain http to a public address, without any request', async () => {
    const { lookup } = countingLookup(() => ['93.184.215.14']);
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, lookup, ca: certificate.cert });
    try {
      await expect(
        guarded(`https://u:p@127.0.0.1:${port}/`, { method: 'POST', body: '{}' }),
      ).rejects.toMatchObject({
        reason: 'credentials_in_url',
      });
      await expect(
        guarded('http://receiver.example.com/', { method: 'POST', body: '{}' }),
      ).rejects.toMatchObject({
        reason: 'insecure_scheme',
      });
      expect(received).toHaveLength(0);
    } finally {
      guarded.close();
    }
  });

  it('fits where a fetch is expected: postJson delivers through it and reports a refusal as status 0', async () => {
    const guarded = createGuardedFetch({ allowlist: loopbackAllowed, ca: certificate.cert });
    try {
      const delivered = await postJson(guarded, `https://127.0.0.1:${port}/`, { message_id: 'msg_2' });
      expect(delivered).toMatchObject({ status: 200, json: { received: true } });
      expect(JSON.parse((received[0] as Received).body.toString('utf8'))).toEqual({ message_id: 'msg_2' });
      const refused = await postJson(guarded, 'https://10.0.0.1/', { message_id: 'msg_3' });
      expect(refused.status).toBe(0);
      expect(received).toHaveLength(1);
    } finally {
      guarded.close();
    }
  });
});
