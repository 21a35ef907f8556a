import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  agentResponsePayloadSchema,
  agentStatusPayloadSchema,
  verifyCallbackSignature,
} from '@parley/channels';
import { createSelfSignedCertificate, type TestCertificate } from '@parley/channels/testing';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, parleyBin, repoRoot, runCli } from './testing/runCli.js';

/**
 * Issue 7 "Done when": Parley as deployed — `parley api` and `parley worker` as two processes on
 * one database — submits messages and calls back a real HTTPS receiver on loopback with a
 * self-signed certificate (trusted through NODE_EXTRA_CA_CERTS, verification on). The receiver
 * verifies every signature, goes down for a while (connections refused) and comes back; each
 * message_id is delivered at least once and processed once.
 */

const freePort = async (): Promise<number> => {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

const until = async (what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

interface Delivery {
  event: string;
  deliveryId: string;
  attempt: number;
  body: Record<string, unknown>;
}

/** The receiver of docs/http-async.md: verify, answer at once, process each (event, message_id) once. */
class Receiver {
  secret = '';
  server: Server | null = null;
  port = 0;
  /** Every verified request, duplicates included. */
  readonly deliveries: Delivery[] = [];
  /** The agent.response message ids processed, once each. */
  readonly processed = new Map<string, Record<string, unknown>>();
  duplicates = 0;
  badSignatures = 0;

  constructor(private readonly cert: TestCertificate) {}

  async listen(): Promise<void> {
    const server = createServer({ key: this.cert.key, cert: this.cert.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const verified = verifyCallbackSignature({
          body: raw,
          timestamp: String(req.headers['x-parley-timestamp']),
          signature: String(req.headers['x-parley-signature']),
          secret: this.secret,
        });
        if (!verified.ok) {
          this.badSignatures += 1;
          res.writeHead(401).end();
          return;
        }
        const event = String(req.headers['x-parley-event']);
        const body = JSON.parse(raw) as Record<string, unknown>;
        this.deliveries.push({
          event,
          deliveryId: String(req.headers['x-parley-delivery']),
          attempt: Number(req.headers['x-parley-attempt']),
          body,
        });
        res.writeHead(200).end();
        if (event !== 'agent.response') return;
        const id = String(body.message_id);
        if (this.processed.has(id)) this.duplicates += 1;
        else this.processed.set(id, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Down: the port refuses connections. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
}

describe('HTTP async end to end: submit, signed HTTPS callbacks, a receiver that fails and recovers', () => {
  let db: TestDatabase;
  let cert: TestCertificate;
  let receiver: Receiver;
  let api: ChildProcess;
  let worker: ChildProcess;
  let base: string;
  let projectId: string;
  let submitKey: string;
  let adminKey: string;
  let logs = '';

  const start = (command: 'api' | 'worker', env: NodeJS.ProcessEnv): ChildProcess => {
    const child = spawn(process.execPath, [parleyBin, command], { cwd: repoRoot, env });
    child.stdout?.on('data', (d) => (logs += d));
    child.stderr?.on('data', (d) => (logs += d));
    return child;
  };

  beforeAll(async () => {
    cert = createSelfSignedCertificate();
    receiver = new Receiver(cert);
    await receiver.listen();
    db = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env = cleanEnv({
      DATABASE_URL: db.url,
      PORT: String(port),
      CHANNEL_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      // The receiver is on loopback, which the callback URL guard refuses unless allowlisted.
      HTTP_ASYNC_CALLBACK_ALLOWLIST: '127.0.0.1/32',
      // A short schedule, so the test waits seconds, not the production minutes.
      HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: '1s,1s,2s,2s,2s,2s,2s,2s,2s,2s',
      NODE_EXTRA_CA_CERTS: cert.certFile,
    });
    const migrate = await runCli(['migrate'], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    const tenant = JSON.parse((await runCli(['tenants', 'create', '--name', 'Acme', '--json'], env)).stdout);
    const project = JSON.parse(
      (await runCli(['projects', 'create', '--tenant', tenant.id, '--slug', 'async', '--json'], env)).stdout,
    );
    projectId = project.id;
    const key = async (scope: string) => {
      const run = await runCli(['keys', 'create', '--project', projectId, '--scope', scope], env);
      expect(run.code, run.stderr).toBe(0);
      return run.stdout.trim();
    };
    submitKey = await key('channels.http_async');
    adminKey = await key('channels.write');
    api = start('api', env);
    worker = start('worker', env);
    await until(
      'the API',
      async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200,
      60_000,
    );
    // The worker creates the job queues when it starts; until then a submit answers 503
    // QUEUE_UNAVAILABLE (docs/http-async.md). Wait for it, as a deployment waits for its worker.
    await until(
      'the worker',
      async () =>
        (
          await db.pool
            .query<{ n: number }>(
              `select count(*)::int as n from pgboss.queue where name in ('http-async-turn', 'http-async-callback')`,
            )
            .catch(() => ({ rows: [{ n: 0 }] }))
        ).rows[0]?.n === 2,
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    for (const child of [api, worker]) child?.kill('SIGTERM');
    await Promise.all(
      [api, worker].map(
        (child) =>
          new Promise((resolve) =>
            child === undefined || child.exitCode !== null ? resolve(null) : child.on('exit', resolve),
          ),
      ),
    );
    await receiver?.stop();
    cert?.remove();
    await db?.close();
  });

  type Ack = { message_id: string; session_key: string; status: string };
  const submit = async (message: string, sessionKey: string): Promise<Ack> => {
    const res = await fetch(`${base}/api/v1/channels/http-async/message`, {
      method: 'POST',
      headers: { 'x-api-key': submitKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        project_id: projectId,
        subscription_id: subscriptionId,
        message,
        session_key: sessionKey,
        metadata: { ticket: sessionKey },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    return (await res.json()) as Ack;
  };
  let subscriptionId = '';

  it('delivers every reply, signed, once per message, across the receiver going down and back up', async () => {
    const created = await fetch(`${base}/api/projects/${projectId}/webhook-subscriptions`, {
      method: 'POST',
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        displayName: 'CRM receiver',
        callbackUrl: `https://127.0.0.1:${receiver.port}/parley`,
        events: ['agent.response', 'agent.status'],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { subscription, secret } = (await created.json()) as {
      subscription: { id: string };
      secret: string;
    };
    subscriptionId = subscription.id;
    receiver.secret = secret;

    // Receiver up: three conversations start; each continues with its canonical key.
    const acks: Ack[] = [];
    for (const n of [1, 2, 3]) acks.push(await submit(`Hello from customer ${n}`, `crm-ticket-${n}`));
    for (const ack of acks) {
      expect(ack.status).toBe('accepted');
      expect(ack.session_key).toMatch(new RegExp(`^ha:${subscriptionId}:`));
    }
    await until('the first replies', () => acks.every((a) => receiver.processed.has(a.message_id)), 30_000);

    // Receiver down: the port refuses connections while the conversations go on.
    await receiver.stop();
    const whileDown: Ack[] = [];
    for (const ack of acks) whileDown.push(await submit('And my order?', ack.session_key));
    // Until several attempts of each callback have failed.
    await until(
      'failed attempts to show in the Activity log',
      async () => {
        const res = await fetch(
          `${base}/api/projects/${projectId}/webhook-subscriptions/${subscriptionId}/deliveries?status=failed`,
          { headers: { 'x-api-key': adminKey } },
        );
        const page = (await res.json()) as { deliveries: Array<{ attempts: number }> };
        return page.deliveries.length >= whileDown.length && page.deliveries.every((d) => d.attempts >= 2);
      },
      30_000,
    );
    expect(whileDown.some((a) => receiver.processed.has(a.message_id))).toBe(false);

    // Back up: the retries deliver everything.
    await receiver.listen();
    await until(
      'every reply after the recovery',
      () => whileDown.every((a) => receiver.processed.has(a.message_id)),
      60_000,
    );

    expect(receiver.badSignatures).toBe(0);
    const all = [...acks, ...whileDown];
    expect(receiver.processed.size).toBe(all.length);
    for (const ack of all) {
      const body = agentResponsePayloadSchema.parse(receiver.processed.get(ack.message_id));
      expect(body.session_key).toBe(ack.session_key);
      expect(body.outcome).toEqual({ status: 'ok', usedFallback: false });
      expect(body.response.length).toBeGreaterThan(0);
    }
    // The second message of each conversation went to the same runtime session.
    for (const [i, first] of acks.entries()) {
      const second = whileDown[i];
      if (second === undefined) throw new Error('missing submit');
      const a = agentResponsePayloadSchema.parse(receiver.processed.get(first.message_id));
      const b = agentResponsePayloadSchema.parse(receiver.processed.get(second.message_id));
      expect(a.is_new_session).toBe(true);
      expect(b.is_new_session).toBe(false);
      expect(b.session_id).toBe(a.session_id);
      expect(b.metadata).toEqual({ ticket: first.session_key });
    }
    // The recovered deliveries arrived on a later attempt, with the same delivery id as the failed ones.
    const late = receiver.deliveries.filter(
      (d) => d.event === 'agent.response' && whileDown.some((a) => a.message_id === d.body.message_id),
    );
    expect(late.every((d) => d.attempt > 1)).toBe(true);
    for (const d of receiver.deliveries.filter((x) => x.event === 'agent.status')) {
      agentStatusPayloadSchema.parse(d.body);
    }

    // The Activity log shows each recovered delivery: failed attempts, then the successful one.
    const target = whileDown[0];
    if (target === undefined) throw new Error('missing submit');
    await until(
      'the Activity log to show the deliveries',
      async () => {
        const res = await fetch(
          `${base}/api/projects/${projectId}/webhook-subscriptions/${subscriptionId}/deliveries?messageId=${target.message_id}&eventType=agent.response`,
          { headers: { 'x-api-key': adminKey } },
        );
        const page = (await res.json()) as { deliveries: Array<{ status: string }> };
        return page.deliveries[0]?.status === 'delivered';
      },
      30_000,
    );
    const list = (await (
      await fetch(
        `${base}/api/projects/${projectId}/webhook-subscriptions/${subscriptionId}/deliveries?messageId=${target.message_id}&eventType=agent.response`,
        { headers: { 'x-api-key': adminKey } },
      )
    ).json()) as { deliveries: Array<{ deliveryId: string }> };
    const deliveryId = list.deliveries[0]?.deliveryId;
    const detail = (await (
      await fetch(
        `${base}/api/projects/${projectId}/webhook-subscriptions/${subscriptionId}/deliveries/${deliveryId}`,
        { headers: { 'x-api-key': adminKey } },
      )
    ).json()) as { attempts: Array<{ result: string; status: number | null }> };
    expect(detail.attempts.length).toBeGreaterThan(1);
    expect(detail.attempts.slice(0, -1).every((a) => a.result === 'failed' && a.status === null)).toBe(true);
    expect(detail.attempts.at(-1)).toMatchObject({ result: 'delivered', status: 200 });
    expect(logs).not.toContain(secret);
  }, 240_000);
});
