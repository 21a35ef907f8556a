import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn } from '../../testing/email/smtpStandIn.js';
import { testConnection } from '../../testing/standInServer.js';
import type { OutgoingMessage, ResolvedConnection } from '../../types.js';
import { createEmailAdapter, type EmailAdapter } from './emailAdapter.js';
import { channelEmailMigrations } from './emailMigrations.js';

/** sendResponse against stand-in relays (each TLS mode, refusals) and a stand-in Graph API. */

let db: TestDatabase;
let adapter: EmailAdapter;
const closers: (() => Promise<void>)[] = [];
let seq = 0;

beforeAll(async () => {
  db = await createTestDatabase([channelEmailMigrations]);
  adapter = createEmailAdapter({ pool: db.pool });
});
afterAll(async () => {
  await db?.close();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const connectionWith = (settings: Record<string, unknown>, credentials: Record<string, string> = {}) => {
  seq += 1;
  const c: ResolvedConnection = {
    ...testConnection('email', 'support@acme.example', credentials),
    id: `conn_email_${seq}`,
    settings: { autoReplyThresholdSeconds: 0, ...settings },
  };
  return c;
};

const message = (text = 'Hello **there**'): OutgoingMessage => {
  seq += 1;
  return {
    externalSessionKey: 'm1@customer.example',
    reply: { text },
    metadata: {
      from: 'alice@customer.example',
      subject: 'Help',
      messageId: 'm1@customer.example',
      references: [],
    },
    messageId: `reply_${seq}`,
  };
};

const fetchHttp = { fetch };

describe('email over SMTP relays', () => {
  it('sends with implicit TLS (465 style) and in clear text (none)', async () => {
    const implicit = await startSmtpStandIn({ tls: 'implicit' });
    const clear = await startSmtpStandIn({ tls: 'none' });
    closers.push(implicit.close, clear.close);
    const viaImplicit = connectionWith({
      smtpHost: '127.0.0.1',
      smtpPort: implicit.port,
      tlsMode: 'implicit',
      tlsRejectUnauthorized: false,
    });
    const viaClear = connectionWith({ smtpHost: '127.0.0.1', smtpPort: clear.port, tlsMode: 'none' });
    expect(await adapter.sendResponse(message(), viaImplicit, fetchHttp)).toMatchObject({ ok: true });
    expect(await adapter.sendResponse(message(), viaClear, fetchHttp)).toMatchObject({ ok: true });
    expect(implicit.captured.map((m) => m.secure)).toEqual([true]);
    expect(clear.captured.map((m) => m.secure)).toEqual([false]);
    expect(clear.captured[0]?.parsed.text?.trim()).toBe('Hello there');
  });

  it('refuses to send in clear text when STARTTLS is required but the relay has none', async () => {
    const clear = await startSmtpStandIn({ tls: 'none' });
    closers.push(clear.close);
    const result = await adapter.sendResponse(
      message(),
      connectionWith({ smtpHost: '127.0.0.1', smtpPort: clear.port, tlsMode: 'starttls' }),
      fetchHttp,
    );
    expect(result).toMatchObject({ ok: false });
    expect(clear.captured).toHaveLength(0);
  });

  it('reports 5xx as permanent, 4xx and an unreachable relay as retryable, without credentials', async () => {
    const codes = [550, 451];
    const relay = await startSmtpStandIn({
      tls: 'none',
      auth: { user: 'u', pass: 'secret-pass' },
      refuse: () => {
        const code = codes.shift();
        return code === undefined ? null : { code, message: `${code} refused` };
      },
    });
    closers.push(relay.close);
    const c = connectionWith(
      { smtpHost: '127.0.0.1', smtpPort: relay.port, tlsMode: 'none' },
      { smtpUsername: 'u', smtpPassword: 'secret-pass' },
    );
    const permanent = await adapter.sendResponse(message(), c, fetchHttp);
    expect(permanent).toMatchObject({ ok: false, retryable: false, status: 550 });
    const temporary = await adapter.sendResponse(message(), c, fetchHttp);
    expect(temporary).toMatchObject({ ok: false, retryable: true, status: 451 });
    const retried = message();
    expect(await adapter.sendResponse(retried, c, fetchHttp)).toMatchObject({ ok: true });
    expect(relay.captured[0]?.user).toBe('u');
    // A send job run again after its outcome was recorded does not send twice.
    expect(await adapter.sendResponse(retried, c, fetchHttp)).toMatchObject({ ok: true });
    expect(relay.captured).toHaveLength(1);

    const badAuth = connectionWith(
      { smtpHost: '127.0.0.1', smtpPort: relay.port, tlsMode: 'none' },
      { smtpUsername: 'u', smtpPassword: 'wrong-pass' },
    );
    const refused = await adapter.sendResponse(message(), badAuth, fetchHttp);
    expect(refused).toMatchObject({ ok: false, retryable: false, status: 535 });
    expect(JSON.stringify([permanent, temporary, refused])).not.toContain('pass');

    const closed = await startSmtpStandIn({ tls: 'none' });
    await closed.close();
    const unreachable = await adapter.sendResponse(
      message(),
      connectionWith({ smtpHost: '127.0.0.1', smtpPort: closed.port, tlsMode: 'none' }),
      fetchHttp,
    );
    expect(unreachable).toMatchObject({ ok: false, retryable: true });
  });

  it('fails permanently, with a clear error, when the settings are incomplete', async () => {
    expect(await adapter.sendResponse(message(), connectionWith({}), fetchHttp)).toEqual({
      ok: false,
      retryable: false,
      error: 'email settings invalid: smtpHost: smtpHost is required for the smtp transport',
    });
    expect(
      await adapter.sendResponse(
        message(),
        connectionWith({ transport: 'graph' }, { graphClientId: 'c' }),
        fetchHttp,
      ),
    ).toEqual({
      ok: false,
      retryable: false,
      error: 'email graph transport: missing credentials graphClientSecret, graphTenantId',
    });
  });
});

interface GraphRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A stand-in for the Microsoft identity platform and Graph: records raw bodies (sendMail takes base64 MIME). */
async function startGraphStandIn(answer: (r: GraphRequest) => { status: number; body?: unknown }) {
  const requests: GraphRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(r);
      const { status, body } = answer(r);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url, requests };
}

describe('email over Microsoft Graph', () => {
  it('takes a client-credentials token once and posts the MIME message to sendMail', async () => {
    const sendStatuses = [202, 503, 202];
    const graph = await startGraphStandIn((r) =>
      r.path.endsWith('/oauth2/v2.0/token')
        ? { status: 200, body: { token_type: 'Bearer', expires_in: 3599, access_token: 'graph-token-1' } }
        : { status: sendStatuses.shift() ?? 202, body: r.path.includes('sendMail') ? undefined : {} },
    );
    const c = connectionWith(
      {
        transport: 'graph',
        graphSender: 'mailer@acme.example',
        graphLoginBaseUrl: graph.url,
        apiBaseUrl: `${graph.url}/v1.0`,
        senderName: 'Acme',
        replyTo: 'help@acme.example',
      },
      { graphClientId: 'client-1', graphClientSecret: 'client-secret-1', graphTenantId: 'tenant-1' },
    );
    const http = { fetch, apiBaseUrl: `${graph.url}/v1.0` };
    expect(await adapter.sendResponse(message('See *this*'), c, http)).toMatchObject({ ok: true });
    const unavailable = await adapter.sendResponse(message(), c, http);
    expect(unavailable).toMatchObject({ ok: false, retryable: true, status: 503 });
    expect(await adapter.sendResponse(message(), c, http)).toMatchObject({ ok: true });

    expect(graph.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /tenant-1/oauth2/v2.0/token',
      'POST /v1.0/users/mailer%40acme.example/sendMail',
      'POST /v1.0/users/mailer%40acme.example/sendMail',
      'POST /v1.0/users/mailer%40acme.example/sendMail',
    ]);
    const token = Object.fromEntries(new URLSearchParams(graph.requests[0]?.body));
    expect(token).toEqual({
      client_id: 'client-1',
      client_secret: 'client-secret-1',
      scope: 'https://graph.microsoft.com/.default',
      grant_type: 'client_credentials',
    });
    const send = graph.requests[1];
    expect(send?.headers.authorization).toBe('Bearer graph-token-1');
    expect(send?.headers['content-type']).toBe('text/plain');
    const mime = await simpleParser(Buffer.from(send?.body ?? '', 'base64'));
    expect(mime.subject).toBe('Re: Help');
    expect(mime.inReplyTo).toBe('<m1@customer.example>');
    expect(mime.replyTo?.text).toBe('help@acme.example');
    expect(mime.from?.text).toBe('"Acme" <support@acme.example>');
    expect(mime.headers.get('auto-submitted')).toBe('auto-replied');
    expect(mime.text?.trim()).toBe('See this');
    expect(JSON.stringify(unavailable)).not.toContain('secret');
  });

  it('reports a refused token as permanent', async () => {
    const graph = await startGraphStandIn(() => ({ status: 401, body: { error: 'invalid_client' } }));
    const c = connectionWith(
      { transport: 'graph', graphLoginBaseUrl: graph.url },
      { graphClientId: 'client-2', graphClientSecret: 'bad-secret', graphTenantId: 'tenant-2' },
    );
    const result = await adapter.sendResponse(message(), c, { fetch, apiBaseUrl: graph.url });
    expect(result).toEqual({
      ok: false,
      retryable: false,
      status: 401,
      error: 'graph token 401 invalid_client',
    });
  });
});
