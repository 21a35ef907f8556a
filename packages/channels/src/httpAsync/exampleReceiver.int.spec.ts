import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSelfSignedCertificate,
  type TestCertificate,
} from '../testing/httpAsync/selfSignedCertificate.js';
import { signCallback } from './callbackSignature.js';
import { parseCallbackAllowlist } from './callbackUrl.js';
import { createGuardedFetch, type GuardedFetch } from './guardedFetch.js';

/** docs/examples/http-async-receiver.mjs, run as a user would run it, fed as Parley's delivery feeds it. */
const example = fileURLToPath(new URL('../../../../docs/examples/http-async-receiver.mjs', import.meta.url));

interface Receiver {
  url: string;
  lines: Record<string, unknown>[];
  child: ChildProcess;
}

const running: ChildProcess[] = [];

const startReceiver = (env: Record<string, string>): Promise<Receiver> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [example], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    const lines: Record<string, unknown>[] = [];
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const line of complete) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (entry.event === 'listening') resolve({ url: entry.url as string, lines, child });
      }
    });
    child.on('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
  });

const waitFor = async (condition: () => boolean, ms = 5_000) => {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

let certificate: TestCertificate;
let guarded: GuardedFetch;

beforeAll(() => {
  certificate = createSelfSignedCertificate();
  guarded = createGuardedFetch({ allowlist: parseCallbackAllowlist('127.0.0.1/32'), ca: certificate.cert });
});

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGTERM');
});

afterAll(() => {
  guarded.close();
  certificate.remove();
});

const post = (url: string, body: string, headers: Record<string, string>) =>
  guarded(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('the example receiver (docs/examples/http-async-receiver.mjs)', () => {
  it('over HTTPS: verifies the signature, answers 200, processes each message_id once', async () => {
    const receiver = await startReceiver({
      PARLEY_CALLBACK_SECRET: 'whsec_example',
      TLS_KEY_FILE: certificate.keyFile,
      TLS_CERT_FILE: certificate.certFile,
    });
    expect(receiver.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/parley\/callback$/);
    const body = JSON.stringify({ message_id: 'msg_1', session_key: 'hak_p1:abc', response: 'hi' });

    const first = await post(receiver.url, body, signCallback(body, 'whsec_example'));
    expect(first.status).toBe(200);
    const again = await post(receiver.url, body, signCallback(body, 'whsec_example'));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    await waitFor(() => receiver.lines.some((l) => l.event === 'duplicate'));
    await waitFor(() => receiver.lines.some((l) => l.event === 'processed'));
    expect(receiver.lines.filter((l) => l.event === 'processed')).toEqual([
      { event: 'processed', message_id: 'msg_1', session_key: 'hak_p1:abc' },
    ]);

    const tampered = body.replace('hi', 'ho');
    expect((await post(receiver.url, tampered, signCallback(body, 'whsec_example'))).status).toBe(401);
    expect((await post(receiver.url, body, signCallback(body, 'whsec_other'))).status).toBe(401);
    const stale = signCallback(body, 'whsec_example', new Date(Date.now() - 301_000));
    expect((await post(receiver.url, body, stale)).status).toBe(401);
    expect((await post(receiver.url, body, {})).status).toBe(401);
    const noId = '{"response":"hi"}';
    expect((await post(receiver.url, noId, signCallback(noId, 'whsec_example'))).status).toBe(400);
    expect((await post(receiver.url.replace('/parley/callback', '/other'), body, {})).status).toBe(404);
    expect(receiver.lines.filter((l) => l.event === 'rejected')).toHaveLength(5);
    expect(receiver.lines.filter((l) => l.event === 'processed')).toHaveLength(1);
  });

  it('in bearer mode over plain HTTP (allowlisted loopback): the token decides', async () => {
    const receiver = await startReceiver({ PARLEY_CALLBACK_TOKEN: 'tok_example' });
    expect(receiver.url).toMatch(/^http:\/\//);
    const body = JSON.stringify({ message_id: 'msg_b' });
    expect((await post(receiver.url, body, { Authorization: 'Bearer tok_wrong' })).status).toBe(401);
    expect((await post(receiver.url, body, { Authorization: 'Bearer tok_example' })).status).toBe(200);
    await waitFor(() => receiver.lines.some((l) => l.event === 'processed'));
  });

  it('refuses to start without exactly one of secret and token', async () => {
    await expect(startReceiver({})).rejects.toThrow('exited with 1');
    await expect(startReceiver({ PARLEY_CALLBACK_SECRET: 's', PARLEY_CALLBACK_TOKEN: 't' })).rejects.toThrow(
      'exited with 1',
    );
  });
});
