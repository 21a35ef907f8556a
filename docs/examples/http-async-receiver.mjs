#!/usr/bin/env node
// A minimal receiver of Parley HTTP async callbacks (docs/channels.md "HTTP async"): plain Node 20+,
// no dependencies. It checks the return-path authentication, answers 200 at once, and hands each
// message_id to the application once, treating redeliveries as handled.
//
//   PARLEY_CALLBACK_SECRET=<subscription secret> \
//   TLS_KEY_FILE=key.pem TLS_CERT_FILE=cert.pem PORT=8443 node http-async-receiver.mjs
//
// Environment:
//   PARLEY_CALLBACK_SECRET  HMAC mode: the secret shown once when the subscription was created
//   PARLEY_CALLBACK_TOKEN   bearer mode: the token given to the subscription (set one of the two)
//   TLS_KEY_FILE, TLS_CERT_FILE  PEM files; both set: HTTPS. Unset: plain HTTP, for a receiver behind
//                           a TLS-terminating proxy (Parley calls https URLs only, unless allowlisted)
//   HOST (127.0.0.1), PORT (8443; 0 picks a free port), CALLBACK_PATH (/parley/callback)
//
// Each line on stdout is one JSON object: listening, processed, duplicate or rejected.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const secret = process.env.PARLEY_CALLBACK_SECRET ?? '';
const token = process.env.PARLEY_CALLBACK_TOKEN ?? '';
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8443);
const path = process.env.CALLBACK_PATH ?? '/parley/callback';
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;
const REMEMBERED_IDS = 100_000;

if ((secret === '') === (token === '')) {
  console.error(
    'set exactly one of PARLEY_CALLBACK_SECRET (HMAC mode) or PARLEY_CALLBACK_TOKEN (bearer mode)',
  );
  process.exit(1);
}

const log = (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`);

const sameText = (a, b) => {
  // Hash both sides first so the comparison takes the same time whatever their lengths.
  const digest = (text) => createHmac('sha256', 'compare').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
};

/** X-Parley-Signature: v1=<hex HMAC-SHA256(secret, "<X-Parley-Timestamp>.<raw body>")>. */
const authenticate = (headers, rawBody) => {
  if (token !== '') {
    const given = /^Bearer +(.+)$/i.exec(String(headers.authorization ?? '').trim())?.[1] ?? '';
    return sameText(given, token) ? undefined : 'bad bearer token';
  }
  const timestamp = String(headers['x-parley-timestamp'] ?? '');
  const signatures = String(headers['x-parley-signature'] ?? '')
    .split(/[\s,]+/)
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3).toLowerCase());
  if (!/^\d{1,15}$/.test(timestamp) || signatures.length === 0)
    return 'missing or malformed signature headers';
  // Refusing old timestamps keeps a captured callback from being replayed later.
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    return 'timestamp outside tolerance';
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  let matched = false;
  for (const candidate of signatures) matched = sameText(candidate, expected) || matched;
  return matched ? undefined : 'signature mismatch';
};

// In memory for the example only: a real receiver records message_id durably (a unique key in its
// database) before answering 200, so a restart does not process a redelivery twice.
const seen = new Map();
const firstTime = (messageId) => {
  if (seen.has(messageId)) return false;
  seen.set(messageId, Date.now());
  if (seen.size > REMEMBERED_IDS) seen.delete(seen.keys().next().value);
  return true;
};

/** The application's work; it runs after the 200 has been sent, so a slow step never delays Parley. */
const process_ = (payload) => {
  log({ event: 'processed', message_id: payload.message_id, session_key: payload.session_key ?? null });
};

const reply = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const handler = (req, res) => {
  if (new URL(req.url ?? '/', 'http://receiver').pathname !== path)
    return reply(res, 404, { error: 'not found' });
  if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' });
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) return reply(res, 413, { error: 'body too large' });
    // Verify over the exact bytes received, before any JSON parsing.
    const rawBody = Buffer.concat(chunks);
    const refusal = authenticate(req.headers, rawBody);
    if (refusal !== undefined) {
      log({ event: 'rejected', reason: refusal });
      return reply(res, 401, { error: 'unauthenticated' });
    }
    let payload;
    try {
      payload = JSON.parse(rawBody.toString('utf8'));
    } catch {
      payload = undefined;
    }
    const messageId = payload?.message_id;
    if (typeof messageId !== 'string' || messageId === '' || messageId.length > 256) {
      log({ event: 'rejected', reason: 'payload without a message_id' });
      return reply(res, 400, { error: 'invalid payload' });
    }
    if (!firstTime(messageId)) {
      log({ event: 'duplicate', message_id: messageId });
      return reply(res, 200, { received: true, duplicate: true });
    }
    reply(res, 200, { received: true });
    setImmediate(() => process_(payload));
  });
};

const keyFile = process.env.TLS_KEY_FILE;
const certFile = process.env.TLS_CERT_FILE;
const tls = keyFile !== undefined && certFile !== undefined;
const server = tls
  ? https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, handler)
  : http.createServer(handler);

server.listen(port, host, () => {
  const address = server.address();
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  log({ event: 'listening', url: `${tls ? 'https' : 'http'}://${shownHost}:${address.port}${path}` });
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
