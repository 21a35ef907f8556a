import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createAuthStore, SCOPE_NAMES } from '@parley/auth';
import { recordingStream, toAppend } from '@parley/events';
import { createMediaStorage, recordingMediaKey } from '@parley/media';
import type { InProcessParley } from './inProcessParley.js';

/**
 * One tenant with one of every resource a route can name, made through the API as a client would
 * (a recording's events appended as the telephony intake and media fetcher would). `marker` is in
 * every name, description and message of the tenant and in no id: a body that contains it carries
 * this tenant's data.
 */
export interface TenantWorld {
  label: string;
  marker: string;
  tenantId: string;
  projectId: string;
  /** A platform key with every scope. */
  apiKey: string;
  publicKey: string;
  publicKeyId: string;
  origin: string;
  /** An SDK session token of the project, from POST /api/v1/sdk/init. */
  sdkToken: string;
  sessionId: string;
  spanId: string;
  agentName: string;
  slack: { id: string; identifier: string };
  a2a: { id: string; identifier: string };
  contactCenter: { id: string; streamId: string };
  subscriptionId: string;
  deliveryId: string;
  sdkChannelId: string;
  recordingId: string;
  /** An A2A task of the a2a connection (message/send with this tenant's key). */
  a2aTask: { id: string; contextId: string };
  /** The token of the recording's proxied media URL (spec 000 §4.1), with its query. */
  media: { token: string; objectIndex: string; disposition: string };
  /** A user JWT of this tenant with every scope; claims override or remove (undefined) the defaults. */
  jwt(claims?: Record<string, unknown>): Promise<string>;
}

const WAV = Buffer.concat([Buffer.from('RIFF....WAVEfmt ', 'latin1'), Buffer.alloc(64)]);

export async function createTenantWorld(parley: InProcessParley, label: string): Promise<TenantWorld> {
  const suffix = randomBytes(4).toString('hex');
  const marker = `${label}-data-${randomBytes(6).toString('hex')}`;
  const auth = createAuthStore(parley.system.pool);
  const tenant = await auth.createTenant({ name: `tenant ${marker}`, features: { callRecording: true } });
  const project = await auth.createProject({
    tenantId: tenant.id,
    slug: `iso-${suffix}`,
    name: `project ${marker}`,
  });
  const { key: apiKey } = await auth.createApiKey({
    projectId: project.id,
    name: `key ${marker}`,
    scopes: [...SCOPE_NAMES],
  });
  const origin = `https://${label.toLowerCase()}-${suffix}.example`;
  const publicKey = await auth.createPublicApiKey({
    projectId: project.id,
    allowedOrigins: [origin],
    permissions: { chat: true, voice: true },
    name: `widget ${marker}`,
  });
  const api = client(parley, { 'x-api-key': apiKey });
  const base = `/api/projects/${project.id}`;

  const agentName = `agent-${suffix}`;
  await api('POST', `/api/v1/projects/${project.id}/agents`, {
    name: agentName,
    description: `agent ${marker}`,
    systemPrompt: `You serve ${marker}.`,
  });
  const chat = await api('POST', '/api/v1/chat/send', { projectId: project.id, message: `hello ${marker}` });
  const sessionId = chat.data.sessionId as string;

  const slackIdentifier = `T${suffix.toUpperCase()}:A${suffix.toUpperCase()}`;
  const slack = await api('POST', `${base}/channel-connections`, {
    channelType: 'slack',
    externalIdentifier: slackIdentifier,
    name: `slack ${marker}`,
    credentials: { botToken: `xoxb-${marker}`, signingSecret: `signing-${marker}` },
  });
  const a2aIdentifier = `a2a-${suffix}`;
  const a2a = await api('POST', `${base}/channel-connections`, {
    channelType: 'a2a',
    externalIdentifier: a2aIdentifier,
    name: `a2a ${marker}`,
  });
  const streamId = `stream-${suffix}`;
  const contactCenter = await api('POST', `${base}/channel-connections`, {
    channelType: 'contact_center',
    externalIdentifier: streamId,
    name: `contact centre ${marker}`,
    credentials: { clientSecret: `client-secret-${marker}` },
  });
  const subscription = await api('POST', `${base}/webhook-subscriptions`, {
    displayName: `subscription ${marker}`,
    callbackUrl: `https://127.0.0.1:9/${marker}`,
    events: ['agent.response'],
  });
  const subscriptionId = subscription.subscription.id as string;
  const delivery = await api('POST', `${base}/webhook-subscriptions/${subscriptionId}/test`, {});
  const sdkChannel = await api('POST', `${base}/sdk-channels`, {
    name: `widget ${marker}`,
    channelType: 'web',
    publicApiKeyId: publicKey.id,
  });
  const init = await client(parley, { 'x-public-key': publicKey.key, origin })('POST', '/api/v1/sdk/init', {
    projectId: project.id,
  });

  const a2aSent = await api('POST', `/api/v1/a2a/${a2aIdentifier}`, {
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: `msg-${suffix}`,
        parts: [{ kind: 'text', text: `task of ${marker}` }],
      },
    },
  });
  const a2aTask = a2aSent.result ?? missing(`an A2A task (${JSON.stringify(a2aSent)})`);

  const recordingId = `RE${suffix}${randomBytes(8).toString('hex')}`;
  await appendRecording(parley, {
    tenantId: tenant.id,
    projectId: project.id,
    sessionId,
    recordingId,
    marker,
  });
  await parley.projected();
  const traces = await api('GET', `${base}/sessions/${sessionId}/traces`);
  const spanId = (traces.traces ?? []).find((e: { spanId?: string }) => typeof e.spanId === 'string')
    ?.spanId as string | undefined;
  const recordings = await api(
    'GET',
    `/api/public/recordings/projects/${project.id}/sessions/${sessionId}/recordings`,
  );
  const mediaUrl = new URL(findMediaUrl(recordings), 'https://parley.test');

  return {
    label,
    marker,
    tenantId: tenant.id,
    projectId: project.id,
    apiKey,
    publicKey: publicKey.key,
    publicKeyId: publicKey.id,
    origin,
    sdkToken: init.token as string,
    sessionId,
    spanId: spanId ?? missing('a span id in the traces of the session'),
    agentName,
    slack: { id: slack.connection.id, identifier: slackIdentifier },
    a2a: { id: a2a.connection.id, identifier: a2aIdentifier },
    contactCenter: { id: contactCenter.connection.id, streamId },
    subscriptionId,
    deliveryId: delivery.deliveryId as string,
    sdkChannelId: sdkChannel.channel.id as string,
    recordingId,
    a2aTask: { id: a2aTask.id, contextId: a2aTask.contextId },
    media: {
      token: decodeURIComponent(mediaUrl.pathname.split('/').at(-1) ?? ''),
      objectIndex: mediaUrl.searchParams.get('objectIndex') ?? '0',
      disposition: mediaUrl.searchParams.get('disposition') ?? 'inline',
    },
    async jwt(claims = {}) {
      const body: Record<string, unknown> = {
        tenant_id: tenant.id,
        project_ids: [project.id],
        scope: SCOPE_NAMES.join(' '),
        ...claims,
      };
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
      return signHs256(
        { sub: `user-${label}`, exp: Math.floor(Date.now() / 1000) + 3600, ...body },
        parley.secrets.jwt,
      );
    },
  };
}

/** A compact HS256 JWS, as an identity provider sharing JWT_SECRET issues it. */
function signHs256(claims: Record<string, unknown>, secret: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

function missing(what: string): never {
  throw new Error(`the tenant world has no ${what}`);
}

/** A JSON client of the in-process API that fails loudly on anything but 2xx. */
function client(
  parley: InProcessParley,
  headers: Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: fixture bodies are read loosely; the routes' own tests check their shapes
): (method: string, url: string, body?: unknown) => Promise<any> {
  return async (method, url, body) => {
    const res = await parley.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(body === undefined ? {} : { payload: body as object }),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return String(res.headers['content-type'] ?? '').includes('json') ? res.json() : res.body;
  };
}

/** A recorded call of the session, as the telephony intake and the media fetcher record it. */
async function appendRecording(
  parley: InProcessParley,
  ids: { tenantId: string; projectId: string; sessionId: string; recordingId: string; marker: string },
): Promise<void> {
  const { tenantId, projectId, sessionId, recordingId } = ids;
  const storage = createMediaStorage(parley.system.config);
  const storageKey = recordingMediaKey({ projectId, recordingId, objectIndex: 0, extension: 'wav' });
  await storage.put(storageKey, WAV, { contentType: 'audio/wav' });
  const scope = { recordingId, sessionId, projectId, callId: `call-${recordingId}` };
  const at = new Date().toISOString();
  const file = {
    objectIndex: 0,
    fileName: `${ids.marker}.wav`,
    channel: 'mixed' as const,
    recordingType: 'audio',
    contentType: 'audio/wav',
    recordingStartTime: at,
    recordingEndTime: at,
    source: { kind: 'recording_server' as const, url: `https://recordings.example.com/${recordingId}` },
  };
  const meta = { tenantId, projectId };
  await parley.system.store.append(recordingStream(recordingId), [
    toAppend('RecordingStarted', { ...scope, startedAt: at }, meta, randomUUID()),
    toAppend(
      'RecordingCompleted',
      { ...scope, durationSeconds: 1, files: [file], completedAt: at },
      meta,
      randomUUID(),
    ),
    toAppend(
      'RecordingFileStored',
      { ...scope, objectIndex: 0, bytes: WAV.length, storageKey, storedAt: at },
      meta,
      randomUUID(),
    ),
  ]);
}

function findMediaUrl(body: unknown): string {
  const found = JSON.stringify(body).match(/"([^"]*\/media\/content\/[^"]+)"/);
  return found?.[1] ?? missing('media URL in the recordings answer');
}
