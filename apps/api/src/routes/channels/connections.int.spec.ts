import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  CONNECTION_ERROR_THRESHOLD,
  type ConnectionStore,
  channelsMigrations,
  createConnectionStore,
  createKeyring,
  credentialsKeyId,
} from '@parley/channels';
import { LOOPBACK_API_BASE_URLS } from '@parley/channels/testing';
import { createInProcessRateLimiter } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

let db: TestDatabase;
let auth: AuthStore;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let store: ConnectionStore;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let writeKey: string;
let readKey: string;
let otherKey: string;
let agentsKey: string;
const key = randomBytes(32);

const SECRETS = [
  'EAAG-access-token-secret',
  'app-secret-value-123',
  'verify-token-value-456',
  'new-app-secret-789',
];

beforeAll(async () => {
  db = await createTestDatabase([authMigrations, channelsMigrations]);
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  tenantId = tenant.id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  writeKey = (await auth.createApiKey({ projectId, name: 'w', scopes: ['channels.write'] })).key;
  readKey = (await auth.createApiKey({ projectId, name: 'r', scopes: ['channels.read'] })).key;
  agentsKey = (await auth.createApiKey({ projectId, name: 'a', scopes: ['agents.write'] })).key;
  otherKey = (await auth.createApiKey({ projectId: otherProjectId, name: 'o', scopes: ['channels.write'] }))
    .key;
  store = createConnectionStore(db.pool, createKeyring(key), { apiBaseUrl: LOOPBACK_API_BASE_URLS });
  const common = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
  };
  app = await buildApp({
    ...common,
    channelConnections: { verifyApiKey: (k) => auth.verifyApiKey(k), connections: store },
  });
  unconfigured = await buildApp({
    ...common,
    channelConnections: { verifyApiKey: (k) => auth.verifyApiKey(k), connections: null },
  });
});
afterAll(async () => {
  await app?.close();
  await unconfigured?.close();
  await db?.close();
});

const base = (p = projectId) => `/api/projects/${p}/channel-connections`;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: object) =>
  app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });
const expectNoSecrets = (body: string) => {
  for (const s of SECRETS) expect(body).not.toContain(s);
};
const whatsapp = {
  channelType: 'whatsapp',
  externalIdentifier: '106540352242922',
  name: 'WhatsApp support',
  agentName: 'support',
  deploymentId: 'dep_42',
  credentials: { accessToken: SECRETS[0], appSecret: SECRETS[1], verifyToken: SECRETS[2] },
  settings: { apiBaseUrl: 'http://127.0.0.1:4010/v21.0', displayPhoneNumber: '+1 555 0100' },
};

describe('channel connections API', () => {
  it('creates, lists, shows, updates, toggles and deletes a connection without ever returning credentials', async () => {
    const created = await call('POST', base(), writeKey, whatsapp);
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expectNoSecrets(created.body);
    const connection = created.json().connection;
    expect(created.json()).toEqual({
      success: true,
      connection: {
        id: expect.stringMatching(/^chc_[0-9A-Za-z]{16}$/),
        tenantId,
        projectId,
        channelType: 'whatsapp',
        provider: null,
        externalIdentifier: '106540352242922',
        name: 'WhatsApp support',
        agentName: 'support',
        deploymentId: 'dep_42',
        active: true,
        status: 'active',
        credentialNames: ['accessToken', 'appSecret', 'verifyToken'],
        settings: { apiBaseUrl: 'http://127.0.0.1:4010/v21.0', displayPhoneNumber: '+1 555 0100' },
        webhookPath: '/api/v1/channels/whatsapp/webhook/106540352242922',
        consecutiveFailures: 0,
        lastError: null,
        erroredAt: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    // At rest: ciphertext under the configured key, the verify token only as a SHA-256 hash.
    const { rows } = await db.pool.query('select * from channel_connections where id = $1', [connection.id]);
    expectNoSecrets(JSON.stringify(rows[0]));
    expectNoSecrets(rows[0].credentials_ciphertext.toString('latin1'));
    expect(rows[0].credentials_key_id).toBe(credentialsKeyId(key));
    expect((await store.findByVerifyToken('whatsapp', SECRETS[2]!))?.id).toBe(connection.id);

    const list = await call('GET', base(), readKey);
    expect(list.statusCode).toBe(200);
    expectNoSecrets(list.body);
    expect(list.json()).toEqual({
      success: true,
      connections: [connection],
      pagination: { total: 1, limit: 50, offset: 0 },
    });
    const shown = await call('GET', `${base()}/${connection.id}`, readKey);
    expect(shown.json()).toEqual({ success: true, connection });

    const patched = await call('PATCH', `${base()}/${connection.id}`, writeKey, {
      name: null,
      agentName: 'sales',
      credentials: { appSecret: SECRETS[3] },
    });
    expect(patched.statusCode).toBe(200);
    expectNoSecrets(patched.body);
    expect(patched.json().connection).toMatchObject({
      name: null,
      agentName: 'sales',
      deploymentId: 'dep_42',
      credentialNames: ['accessToken', 'appSecret', 'verifyToken'],
    });
    expect((await store.resolveById(connection.id))?.credentials.appSecret).toBe(SECRETS[3]);

    const off = await call('PATCH', `${base()}/${connection.id}`, writeKey, { active: false });
    expect(off.json().connection).toMatchObject({ active: false, status: 'inactive', agentName: 'sales' });
    expect((await store.resolve('whatsapp', '106540352242922'))?.active).toBe(false);
    const on = await call('PATCH', `${base()}/${connection.id}`, writeKey, { active: true });
    expect(on.json().connection).toMatchObject({ active: true, status: 'active' });

    expect((await call('DELETE', `${base()}/${connection.id}`, writeKey)).statusCode).toBe(204);
    const gone = await call('GET', `${base()}/${connection.id}`, readKey);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({
      success: false,
      error: { code: 'CHANNEL_CONNECTION_NOT_FOUND', message: expect.any(String) },
    });
    expect((await call('DELETE', `${base()}/${connection.id}`, writeKey)).json().error.code).toBe(
      'CHANNEL_CONNECTION_NOT_FOUND',
    );
    expect((await call('PATCH', `${base()}/${connection.id}`, writeKey, { active: true })).statusCode).toBe(
      404,
    );
  });

  it('shows status `error` after repeated send failures', async () => {
    const created = (
      await call('POST', base(), writeKey, { ...whatsapp, externalIdentifier: 'err-1' })
    ).json().connection;
    for (let i = 0; i < CONNECTION_ERROR_THRESHOLD; i++)
      await store.recordSendFailure(created.id, 'HTTP 401');
    const shown = (await call('GET', `${base()}/${created.id}`, readKey)).json().connection;
    expect(shown).toMatchObject({
      status: 'error',
      active: true,
      consecutiveFailures: CONNECTION_ERROR_THRESHOLD,
      lastError: { message: 'HTTP 401', at: expect.any(String) },
      erroredAt: expect.any(String),
    });
    const reset = await call('PATCH', `${base()}/${created.id}`, writeKey, { active: true });
    expect(reset.json().connection).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
      erroredAt: null,
    });
  });

  it('answers 400 for invalid bodies, unknown channel types and bad credentials', async () => {
    const cases: Array<[object, string]> = [
      [{ ...whatsapp, channelType: 'pigeon' }, 'UNKNOWN_CHANNEL_TYPE'],
      [{ ...whatsapp, channelType: 'web' }, 'CHANNEL_TYPE_NOT_CONNECTABLE'],
      [{ ...whatsapp, credentials: { accessToken: 'a' } }, 'INVALID_CREDENTIALS'],
      [{ ...whatsapp, credentials: { ...whatsapp.credentials, password: 'x' } }, 'INVALID_CREDENTIALS'],
      [{ ...whatsapp, externalIdentifier: 'has/slash' }, 'VALIDATION_ERROR'],
      [{ ...whatsapp, externalIdentifier: '' }, 'VALIDATION_ERROR'],
      [{ ...whatsapp, agentName: 'bad name' }, 'VALIDATION_ERROR'],
      [{ ...whatsapp, settings: { apiBaseUrl: 'ftp://x' } }, 'VALIDATION_ERROR'],
      [{ ...whatsapp, credentials: { accessToken: '' } }, 'VALIDATION_ERROR'],
      [{ ...whatsapp, extra: true }, 'VALIDATION_ERROR'],
      [{ externalIdentifier: 'x' }, 'VALIDATION_ERROR'],
    ];
    for (const [payload, code] of cases) {
      const res = await call('POST', base(), writeKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code, JSON.stringify(payload)).toBe(code);
      expectNoSecrets(res.body);
    }
    const created = (
      await call('POST', base(), writeKey, { ...whatsapp, externalIdentifier: 'val-1' })
    ).json().connection;
    for (const payload of [
      { channelType: 'slack' },
      { credentials: { appSecret: null } },
      { active: 'yes' },
    ]) {
      const res = await call('PATCH', `${base()}/${created.id}`, writeKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const badPage = await call('GET', `${base()}?limit=0`, readKey);
    expect(badPage.statusCode).toBe(400);
  });

  it('refuses a settings.apiBaseUrl that reaches a non-public address: 400 VALIDATION_ERROR naming the field', async () => {
    // The route's store allowlists loopback only (LOOPBACK_API_BASE_URLS, as CHANNEL_API_BASE_URL_ALLOWLIST would).
    const refused: Array<[string, string]> = [
      ['http://169.254.169.254/latest/meta-data', 'forbidden_address'],
      ['https://10.0.0.7/v21.0', 'forbidden_address'],
      ['https://[fd00::1]/v21.0', 'forbidden_address'],
      ['https://0.0.0.0/', 'forbidden_address'],
      ['http://93.184.216.34/v21.0', 'insecure_scheme'],
      ['https://user:pw@93.184.216.34/', 'credentials_in_url'],
    ];
    for (const [apiBaseUrl, reason] of refused) {
      const res = await call('POST', base(), writeKey, {
        ...whatsapp,
        externalIdentifier: 'ssrf-1',
        settings: { apiBaseUrl },
      });
      expect(res.statusCode, apiBaseUrl).toBe(400);
      expect(res.json(), apiBaseUrl).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: expect.stringMatching(/^settings\.apiBaseUrl: /),
          details: { field: 'settings.apiBaseUrl', reason },
        },
      });
    }
    expect(
      (await store.list(projectId, { limit: 200, offset: 0 })).connections.map((c) => c.externalIdentifier),
    ).not.toContain('ssrf-1');

    const public_ = await call('POST', base(), writeKey, {
      ...whatsapp,
      externalIdentifier: 'ssrf-2',
      settings: { apiBaseUrl: 'https://93.184.216.34/v21.0' },
    });
    expect(public_.statusCode).toBe(201);
    const id = public_.json().connection.id;
    const patched = await call('PATCH', `${base()}/${id}`, writeKey, {
      settings: { apiBaseUrl: 'http://192.168.1.10:8080' },
    });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'settings.apiBaseUrl', reason: 'forbidden_address' },
    });
    expect((await store.get(projectId, id))?.settings).toEqual({ apiBaseUrl: 'https://93.184.216.34/v21.0' });
    // Loopback is allowlisted here: accepted, over plain http too.
    const loopback = await call('PATCH', `${base()}/${id}`, writeKey, {
      settings: { apiBaseUrl: 'http://127.0.0.1:4010/v21.0' },
    });
    expect(loopback.statusCode).toBe(200);
  });

  it('checks what a channel type requires of its settings and identifier (email)', async () => {
    const email = {
      channelType: 'email',
      externalIdentifier: 'Support@Acme.Example',
      credentials: { smtpUsername: 'mailer', smtpPassword: SECRETS[3] },
      settings: { smtpHost: 'smtp.acme.example', smtpPort: 587, tlsMode: 'starttls' },
    };
    const created = await call('POST', base(), writeKey, email);
    expect(created.statusCode).toBe(201);
    // Mail is routed by the lower-cased recipient address.
    expect(created.json().connection.externalIdentifier).toBe('support@acme.example');
    const id = created.json().connection.id as string;

    const cases: Array<[object, string, string]> = [
      [{ ...email, externalIdentifier: 'sales@acme.example', settings: {} }, 'INVALID_SETTINGS', 'smtpHost'],
      [
        {
          ...email,
          externalIdentifier: 'sales@acme.example',
          settings: { ...email.settings, tlsMode: 'ssl' },
        },
        'INVALID_SETTINGS',
        'tlsMode',
      ],
      [{ ...email, externalIdentifier: 'not-an-address' }, 'VALIDATION_ERROR', 'externalIdentifier'],
    ];
    for (const [payload, code, mentioned] of cases) {
      const res = await call('POST', base(), writeKey, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe(code);
      expect(res.json().error.message).toContain(mentioned);
      expectNoSecrets(res.body);
    }
    const badPatch = await call('PATCH', `${base()}/${id}`, writeKey, { settings: { transport: 'fax' } });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().error.code).toBe('INVALID_SETTINGS');
    const renamed = await call('PATCH', `${base()}/${id}`, writeKey, {
      externalIdentifier: 'Help@Acme.Example',
    });
    expect(renamed.json().connection.externalIdentifier).toBe('help@acme.example');
    // Other channel types keep their identifiers as given.
    const slack = await call('POST', base(), writeKey, {
      channelType: 'slack',
      externalIdentifier: 'T0CASE:A0CASE',
      credentials: { botToken: 'xoxb-1', signingSecret: 's' },
    });
    expect(slack.json().connection.externalIdentifier).toBe('T0CASE:A0CASE');
  });

  it('answers 409 when another connection of the channel type has the identifier', async () => {
    await call('POST', base(), writeKey, { ...whatsapp, externalIdentifier: 'dup-1' });
    const dup = await call('POST', base(otherProjectId), otherKey, {
      ...whatsapp,
      externalIdentifier: 'dup-1',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('CHANNEL_CONNECTION_EXISTS');
    // Another channel type may use the same identifier.
    const telegram = await call('POST', base(), writeKey, {
      channelType: 'telegram',
      externalIdentifier: 'dup-1',
      credentials: { botToken: '123:abc' },
    });
    expect(telegram.statusCode).toBe(201);
    const other = (await call('POST', base(), writeKey, { ...whatsapp, externalIdentifier: 'dup-2' })).json()
      .connection;
    const renamed = await call('PATCH', `${base()}/${other.id}`, writeKey, { externalIdentifier: 'dup-1' });
    expect(renamed.statusCode).toBe(409);
    expect(renamed.json().error.code).toBe('CHANNEL_CONNECTION_EXISTS');
  });

  it('pages the list', async () => {
    const all = (await call('GET', `${base()}?limit=200`, readKey)).json();
    expect(all.pagination.total).toBe(all.connections.length);
    const page = (await call('GET', `${base()}?limit=1&offset=1`, readKey)).json();
    expect(page.connections).toEqual([all.connections[1]]);
    expect(page.pagination).toEqual({ total: all.pagination.total, limit: 1, offset: 1 });
  });

  it('checks the credential before the body', async () => {
    const anonymous = await app.inject({ method: 'POST', url: base(), payload: { nope: 1 } });
    expect(anonymous.statusCode).toBe(401);
    const readOnly = await call('POST', base(), readKey, { nope: 1 });
    expect(readOnly.statusCode).toBe(403);
    expect((await call('POST', base(), writeKey, { nope: 1 })).statusCode).toBe(400);
  });

  it('checks the credential, the project and the permission', async () => {
    const none = await app.inject({ method: 'GET', url: base() });
    expect(none.statusCode).toBe(401);
    const wrong = await call('GET', base(), otherKey);
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().error.code).toBe('PROJECT_NOT_FOUND');
    const noScope = await call('GET', base(), agentsKey);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().error.code).toBe('PERMISSION_REQUIRED');
    const readOnly = await call('POST', base(), readKey, whatsapp);
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.json().error.code).toBe('PERMISSION_REQUIRED');
    const mine = (await call('GET', base(), readKey)).json().connections[0];
    // Another project's key cannot reach this project's connection through its own project either.
    expect((await call('GET', `${base(otherProjectId)}/${mine.id}`, otherKey)).statusCode).toBe(404);
    expect((await call('DELETE', `${base(otherProjectId)}/${mine.id}`, otherKey)).statusCode).toBe(404);
    expect((await call('GET', `${base()}/${mine.id}`, readKey)).statusCode).toBe(200);
  });

  it('answers 503 CHANNELS_NOT_CONFIGURED without a credentials key', async () => {
    const res = await unconfigured.inject({ method: 'GET', url: base(), headers: { 'x-api-key': readKey } });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('CHANNELS_NOT_CONFIGURED');
    const anon = await unconfigured.inject({ method: 'GET', url: base() });
    expect(anon.statusCode).toBe(401);
  });
});

describe('channel manifest API', () => {
  it('lists every channel type publicly and shows one', async () => {
    const res = await app.inject('/api/v1/channels/manifest');
    expect(res.statusCode).toBe(200);
    const { success, channels } = res.json();
    expect(success).toBe(true);
    expect(channels.length).toBeGreaterThan(20);
    expect(channels.find((c: { channelType: string }) => c.channelType === 'whatsapp')).toEqual({
      channelType: 'whatsapp',
      displayName: 'WhatsApp Business',
      category: 'chat',
      ingress: 'webhook',
      delivery: 'async_queue',
      authMode: 'hmac',
      responseFormat: 'text',
      supportsRichOutput: true,
      supportsThreading: false,
      supportsMedia: true,
      supportsStreaming: false,
      isConnectionEligible: true,
      isVoice: false,
      supportsTypingIndicator: true,
      requiredCredentials: ['accessToken', 'appSecret', 'verifyToken'],
      optionalCredentials: [],
      webhookPathPattern: '/api/v1/channels/whatsapp/webhook/:identifier',
      capabilities: {
        supportsAsync: true,
        supportsStreaming: false,
        supportsMedia: true,
        supportsThreading: false,
      },
      providers: [],
    });
    const one = await app.inject('/api/v1/channels/manifest/slack');
    expect(one.json()).toMatchObject({ success: true, channel: { channelType: 'slack', authMode: 'hmac' } });
    const unknown = await app.inject('/api/v1/channels/manifest/pigeon');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('UNKNOWN_CHANNEL_TYPE');
  });
});

describe('provider variants (sms: twilio, vonage)', () => {
  const VONAGE_SECRETS = [
    'vonage-signature-secret',
    '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----',
  ];
  const vonage = {
    channelType: 'sms',
    provider: 'vonage',
    externalIdentifier: '+447700900000',
    credentials: {
      signatureSecret: VONAGE_SECRETS[0],
      applicationId: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      privateKey: VONAGE_SECRETS[1],
    },
  };

  it('creates a Vonage connection: its provider, its route, its number as Vonage writes it, credentials encrypted', async () => {
    const created = await call('POST', base(), writeKey, vonage);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().connection).toMatchObject({
      channelType: 'sms',
      provider: 'vonage',
      externalIdentifier: '447700900000',
      credentialNames: ['applicationId', 'privateKey', 'signatureSecret'],
      webhookPath: '/api/v1/channels/sms/vonage/webhook',
    });
    for (const secret of VONAGE_SECRETS) expect(created.body).not.toContain(secret);
    const { rows } = await db.pool.query('select * from channel_connections where id = $1', [
      created.json().connection.id,
    ]);
    for (const secret of VONAGE_SECRETS) {
      expect(JSON.stringify(rows[0])).not.toContain(secret);
      expect(rows[0].credentials_ciphertext.toString('latin1')).not.toContain(secret);
    }
    expect((await store.resolve('sms', '447700900000'))?.credentials.signatureSecret).toBe(VONAGE_SECRETS[0]);
    // The provider cannot change: a PATCH naming it is an unknown field.
    const patch = await call('PATCH', `${base()}/${created.json().connection.id}`, writeKey, {
      provider: 'twilio',
    });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('gives a connection without a provider the default one (twilio), with its credentials and path', async () => {
    const created = await call('POST', base(), writeKey, {
      channelType: 'sms',
      externalIdentifier: '+15017122661',
      credentials: { accountSid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', authToken: 'token' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().connection).toMatchObject({
      provider: 'twilio',
      externalIdentifier: '+15017122661',
      webhookPath: '/api/v1/channels/sms/webhook/%2B15017122661',
    });
  });

  it('400 UNKNOWN_PROVIDER, INVALID_CREDENTIALS and INVALID_SETTINGS by the provider’s rules', async () => {
    const refused = async (body: object, code: string) => {
      const res = await call('POST', base(), writeKey, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe(code);
      return res.json().error;
    };
    expect((await refused({ ...vonage, provider: 'pigeon' }, 'UNKNOWN_PROVIDER')).message).toBe(
      'unknown sms provider: pigeon (one of twilio, vonage)',
    );
    await refused({ ...whatsapp, externalIdentifier: '999', provider: 'cloud' }, 'UNKNOWN_PROVIDER');
    // The Messages API (the default) sends with the application's key.
    expect(
      await refused(
        { ...vonage, externalIdentifier: '447700900010', credentials: { signatureSecret: 's' } },
        'INVALID_CREDENTIALS',
      ),
    ).toMatchObject({ message: expect.stringContaining('missing: applicationId, privateKey') });
    // The SMS API with the API key and secret.
    expect(
      await refused(
        {
          ...vonage,
          externalIdentifier: '447700900011',
          settings: { vonageApi: 'sms' },
          credentials: { signatureSecret: 's', applicationId: 'a', privateKey: 'k' },
        },
        'INVALID_CREDENTIALS',
      ),
    ).toMatchObject({ message: expect.stringContaining('missing: apiKey, apiSecret') });
    await refused(
      {
        ...vonage,
        externalIdentifier: '447700900012',
        credentials: { ...vonage.credentials, authToken: 'x' },
      },
      'INVALID_CREDENTIALS',
    );
    await refused(
      { ...vonage, externalIdentifier: '447700900013', settings: { signatureMethod: 'sha256' } },
      'INVALID_SETTINGS',
    );
    await refused(
      { ...vonage, externalIdentifier: '447700900014', settings: { vonageApi: 'rcs' } },
      'INVALID_SETTINGS',
    );
    await refused({ ...vonage, externalIdentifier: 'not-a-number' }, 'VALIDATION_ERROR');
  });

  it('checks a PATCH of settings against the stored credentials', async () => {
    const created = await call('POST', base(), writeKey, { ...vonage, externalIdentifier: '447700900020' });
    const url = `${base()}/${created.json().connection.id}`;
    const toSmsApi = await call('PATCH', url, writeKey, {
      settings: { vonageApi: 'sms', signatureMethod: 'sha512' },
    });
    expect(toSmsApi.statusCode).toBe(400);
    expect(toSmsApi.json().error).toMatchObject({
      code: 'INVALID_CREDENTIALS',
      message: expect.stringContaining('missing: apiKey, apiSecret'),
    });
    const withKeys = await call('PATCH', url, writeKey, {
      settings: { vonageApi: 'sms', signatureMethod: 'sha512' },
      credentials: { apiKey: 'abcd1234', apiSecret: 'abcdef0123456789' },
    });
    expect(withKeys.statusCode, withKeys.body).toBe(200);
    expect(withKeys.json().connection.settings).toEqual({ vonageApi: 'sms', signatureMethod: 'sha512' });
  });

  it('lists the provider variants in the manifest', async () => {
    const sms = (await app.inject('/api/v1/channels/manifest/sms')).json().channel;
    expect(sms.providers).toEqual([
      {
        provider: 'twilio',
        displayName: 'Twilio-style telephony provider',
        authMode: 'hmac',
        requiredCredentials: ['accountSid', 'authToken'],
        optionalCredentials: [],
        webhookPathPattern: '/api/v1/channels/sms/webhook/:identifier',
        default: true,
      },
      {
        provider: 'vonage',
        displayName: 'Vonage (Messages API or SMS API)',
        authMode: 'jwt',
        requiredCredentials: ['signatureSecret'],
        optionalCredentials: ['applicationId', 'privateKey', 'apiKey', 'apiSecret'],
        webhookPathPattern: '/api/v1/channels/sms/vonage/webhook',
        default: false,
      },
    ]);
    expect(sms.requiredCredentials).toEqual(['accountSid', 'authToken']);
  });
});

describe('OpenAPI', () => {
  it('documents the channel operations in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const url = '/api/projects/:projectId/channel-connections';
    const routes = [
      { method: 'GET', url },
      { method: 'POST', url },
      { method: 'GET', url: `${url}/:id` },
      { method: 'PATCH', url: `${url}/:id` },
      { method: 'DELETE', url: `${url}/:id` },
      { method: 'GET', url: '/api/v1/channels/manifest' },
      { method: 'GET', url: '/api/v1/channels/manifest/:channelType' },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
  });
});
