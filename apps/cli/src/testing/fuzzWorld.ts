import { createAuthStore, SCOPE_NAMES } from '@parley/auth';
import { createSdkTokens } from '@parley/http';
import { listOperations, paramContext } from '@parley/http/testing';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { seedDemo } from '../commands/seed.js';
import { startInProcessParley } from './inProcessParley.js';
import type { OpenApiDocument } from './schemaArbitrary.js';

/**
 * Test-only: Parley as `parley start` composes it (startInProcessParley: the API with every route
 * and a worker), with a demo project seeded (sessions, traces, recordings, ledger), the read models
 * caught up, and a credential of every kind the API takes; for the OpenAPI-driven fuzz test.
 */
export interface FuzzWorld {
  app: FastifyInstance;
  document: OpenApiDocument;
  /** Headers of each security scheme of the document (apiKey, bearer, userJwt, sdkToken, publicKey…). */
  credentials: Record<string, Record<string, string>>;
  /**
   * Values worth trying for a path parameter or field of this name in an operation's path: the
   * seeded resources' ids, first the one most worth trying.
   */
  known(name: string, path: string): readonly string[] | undefined;
  close(): Promise<void>;
}

export const FUZZ_ORIGIN = 'https://shop.example.com';

/** Seeds through the API itself where it can: what it creates is what a client would. */
async function seedThroughApi(app: FastifyInstance, key: string, projectId: string) {
  const post = async (url: string, payload: object) => {
    const res = await app.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload });
    if (res.statusCode >= 300) throw new Error(`seeding ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  await post(`/api/v1/projects/${projectId}/agents`, { name: 'fuzz-agent', provider: 'scripted' });
  const connection = await post(`/api/projects/${projectId}/channel-connections`, {
    channelType: 'whatsapp',
    externalIdentifier: '106540352242922',
    credentials: { accessToken: 'wa-token', appSecret: 'wa-secret', verifyToken: 'wa-verify' },
  });
  const subscription = await post(`/api/projects/${projectId}/webhook-subscriptions`, {
    displayName: 'Fuzz',
    callbackUrl: 'https://127.0.0.1/callback',
    events: ['agent.response'],
  });
  return {
    connectionId: connection.connection?.id ?? connection.data?.id,
    subscriptionId: subscription.subscription?.id,
  };
}

export async function createFuzzWorld(): Promise<FuzzWorld> {
  const parley = await startInProcessParley();
  const { system, secrets } = parley;
  const seeded = await seedDemo(system, { sessions: 4, projectSlug: 'fuzz', randomSeed: 17 });
  // Caught-up read models only widen what the requests reach (200s on reads instead of 404s): on a
  // cluster other test runs keep busy, waiting for them must not fail the fuzz.
  await parley.projected(120_000).catch((err: unknown) => {
    console.warn(`[fuzz] read models not caught up, fuzzing anyway: ${String(err)}`);
  });

  const { tenant, project } = seeded.demo;
  const auth = createAuthStore(system.pool);
  const key = (await auth.createApiKey({ projectId: project.id, name: 'fuzz', scopes: SCOPE_NAMES })).key;
  const publicKey = (
    await auth.createPublicApiKey({
      projectId: project.id,
      allowedOrigins: [FUZZ_ORIGIN],
      permissions: { chat: true, voice: true },
    })
  ).key;
  const jwt = await new SignJWT({
    tenant_id: tenant.id,
    project_ids: [project.id],
    scope: SCOPE_NAMES.join(' '),
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('user_fuzz')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secrets.jwt));
  const sdkToken = (
    await createSdkTokens({ secret: secrets.sdkToken }).issue({
      tenantId: tenant.id,
      projectId: project.id,
      sub: 'visitor_fuzz',
      origin: FUZZ_ORIGIN,
    })
  ).token;

  const { app } = parley;
  await app.ready();
  const ids = await seedThroughApi(app, key, project.id);
  const document = (await app.inject('/openapi.json')).json() as OpenApiDocument;
  if (listOperations(document).length < 50) throw new Error('the OpenAPI document lists too few operations');

  const sessions = seeded.showcases.map((s) => s.sessionId);
  const known: Record<string, readonly string[]> = {
    projectId: [project.id, 'proj_missing'],
    sessionId: [...sessions.slice(0, 3), 'sess_missing'],
    sessionIds: sessions.slice(0, 2),
    name: ['fuzz-agent', 'session-summaries', 'llm-ledger'],
    agentName: ['fuzz-agent'],
    connectionId: [ids.connectionId ?? 'missing'],
    subscription_id: [ids.subscriptionId ?? 'missing'],
    project_id: [project.id],
    channelType: ['whatsapp', 'telegram', 'slack', 'sms', 'vxml', 'contact_center', 'nope'],
    connectionIdentifier: ['106540352242922'],
    // Query values the handlers parse themselves (typed as plain strings in the document).
    fromDate: ['2020-01-01T00:00:00Z', '2020-01-01'],
    toDate: ['2100-01-01T00:00:00Z'],
    limit: ['1', '10'],
    offset: ['0', '3'],
    dataMode: ['summary', 'full'],
    format: ['csv'],
    include: ['metrics'],
    status: ['ended', 'active', 'success', 'failed'],
    environment: ['dev', 'production', 'development'],
    containmentType: ['contained', 'escalated'],
    eventType: ['llm_call', 'tool_call', 'decision'],
    sortBy: ['timestamp', 'cost'],
    sortOrder: ['asc', 'desc'],
    groupBy: ['model', 'provider'],
    bucket: ['day', 'hour'],
    disposition: ['inline', 'attachment'],
    message: ['hello', '/say hi'],
  };
  return {
    app,
    document,
    credentials: {
      apiKey: { 'x-api-key': key },
      bearer: { authorization: `Bearer ${key}` },
      userJwt: { authorization: `Bearer ${jwt}` },
      sdkToken: { 'x-sdk-token': sdkToken, origin: FUZZ_ORIGIN },
      publicKey: { 'x-api-key': publicKey, origin: FUZZ_ORIGIN },
      publicKeyInit: { 'x-public-key': publicKey, origin: FUZZ_ORIGIN },
    },
    known: (name, path) => {
      if (name !== 'id') return known[name];
      // `{id}` is a subscription's or a connection's: the segment before it says which.
      const id = paramContext(path, name).startsWith('webhook-subscriptions/')
        ? ids.subscriptionId
        : ids.connectionId;
      return [id ?? 'missing', 'missing'];
    },
    close: () => parley.close(),
  };
}
