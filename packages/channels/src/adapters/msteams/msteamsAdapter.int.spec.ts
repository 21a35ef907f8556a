import type { ActionSet } from '@parley/events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  STAND_IN_ACCESS_TOKEN as ACCESS_TOKEN,
  STAND_IN_CLIENT_SECRET as CLIENT_SECRET,
  startBotConnectorStandIn,
  STAND_IN_TENANT_ID as TENANT_ID,
} from '../../testing/msteams/botConnectorStandIn.js';
import { personalMessage, request, teamsConnection } from '../../testing/msteams/msteamsTestActivities.js';
import type { ResolvedConnection } from '../../types.js';
import { createMsTeamsAdapter } from './msteamsAdapter.js';

const APP_ID = '8a3c1d0e-5f6a-4b7c-9d8e-0f1a2b3c4d5e';
const SERVICE_URL = 'https://smba.trafficmanager.net/emea/';
let standIn: Awaited<ReturnType<typeof startBotConnectorStandIn>>;
beforeAll(async () => {
  standIn = await startBotConnectorStandIn();
});
afterAll(async () => {
  await standIn?.close();
});
beforeEach(() => {
  standIn.connectorAnswers.length = 0;
});
const connectorCalls = () => standIn.connectorCalls();
const tokenCalls = () => standIn.tokenCalls();

describe('Teams sendResponse and typing against the stand-in Bot Connector', () => {
  const connection = (): ResolvedConnection => ({
    id: 'chc_teams_send',
    tenantId: 'ten_x',
    projectId: 'prj_x',
    channelType: 'msteams',
    externalIdentifier: APP_ID,
    agentName: null,
    deploymentId: null,
    active: true,
    status: 'active' as const,
    credentials: { appId: APP_ID, clientSecret: CLIENT_SECRET, tenantId: TENANT_ID },
    settings: {},
  });
  const personal = 'a:1pErSoNaLcOnVeRsAtIoNiD';
  const message = (reply: { text: string; actionSet?: ActionSet }) => ({
    externalSessionKey: personal,
    reply,
    metadata: { serviceUrl: SERVICE_URL, conversationId: personal, replyToId: '1763719400000' },
    messageId: 'msg_x',
  });

  it('posts the Adaptive Card reply to the activity and reports the new activity id', async () => {
    const teams = createMsTeamsAdapter();
    const reply = {
      text: 'Pick a slot',
      actionSet: { elements: [{ type: 'button' as const, id: 'slot-9', label: '9:00', value: '09:00' }] },
    };
    const first = connectorCalls().length;
    const result = await teams.sendResponse(
      { ...message(reply), channelOutput: teams.transformOutput?.(reply, connection()) },
      connection(),
      { fetch, apiBaseUrl: `${standIn.baseUrl}/` },
    );
    expect(result).toEqual({
      ok: true,
      externalMessageId: expect.stringMatching(/^a:1pErSoNaLcOnVeRsAtIoNiD:\d+$/),
    });
    const [call] = connectorCalls().slice(first);
    expect(call?.path).toBe(`/v3/conversations/${encodeURIComponent(personal)}/activities/1763719400000`);
    expect(call?.body).toMatchObject({
      type: 'message',
      text: 'Pick a slot',
      textFormat: 'markdown',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              {
                type: 'ActionSet',
                actions: [
                  {
                    type: 'Action.Submit',
                    title: '9:00',
                    data: { parley: { id: 'slot-9', value: '09:00', label: '9:00' } },
                  },
                ],
              },
            ],
          },
        },
      ],
    });
  });

  it('retries 429 and 5xx, not 404; renews a refused token once; never puts a secret in an error', async () => {
    const teams = createMsTeamsAdapter();
    const http = { fetch, apiBaseUrl: standIn.baseUrl };
    standIn.connectorAnswers.push(
      {
        status: 429,
        body: { error: { code: 'TooManyRequests', message: 'slow down' } },
        headers: { 'retry-after': '2' },
      },
      { status: 502, body: {} },
      { status: 404, body: { error: { code: 'ConversationNotFound', message: 'Conversation not found.' } } },
    );
    expect(await teams.sendResponse(message({ text: 'a' }), connection(), http)).toEqual({
      ok: false,
      retryable: true,
      status: 429,
      error: 'msteams 429: TooManyRequests',
    });
    expect(await teams.sendResponse(message({ text: 'a' }), connection(), http)).toMatchObject({
      ok: false,
      retryable: true,
      status: 502,
    });
    expect(await teams.sendResponse(message({ text: 'a' }), connection(), http)).toEqual({
      ok: false,
      retryable: false,
      status: 404,
      error: 'msteams 404: ConversationNotFound',
    });

    // The Bot Connector refuses the cached token once: a new token is fetched and the post repeated.
    const tokensBefore = tokenCalls().length;
    standIn.connectorAnswers.push({
      status: 401,
      body: { message: 'Authorization has been denied for this request.' },
    });
    expect(await teams.sendResponse(message({ text: 'b' }), connection(), http)).toMatchObject({ ok: true });
    expect(tokenCalls().length - tokensBefore).toBe(1);
    standIn.connectorAnswers.push({ status: 401, body: {} }, { status: 401, body: {} });
    expect(await teams.sendResponse(message({ text: 'c' }), connection(), http)).toEqual({
      ok: false,
      retryable: false,
      status: 401,
      error: 'msteams 401: request failed',
    });

    const wrongSecret = {
      ...connection(),
      credentials: { ...connection().credentials, clientSecret: 'wrong-secret' },
    };
    const refused = await teams.sendResponse(message({ text: 'd' }), wrongSecret, http);
    expect(refused).toEqual({
      ok: false,
      retryable: false,
      status: 401,
      error: 'msteams token 401: invalid_client',
    });
    expect(JSON.stringify(refused)).not.toContain('wrong-secret');
    expect(JSON.stringify(refused)).not.toContain(ACCESS_TOKEN);
  });

  it('reports an unreachable Bot Connector as retryable, and will not send the token to a non-https serviceUrl', async () => {
    const teams = createMsTeamsAdapter({ loginBaseUrl: standIn.baseUrl });
    const down = await teams.sendResponse(message({ text: 'x' }), connection(), {
      fetch,
      apiBaseUrl: 'http://127.0.0.1:9',
    });
    expect(down).toEqual({ ok: false, retryable: true, error: 'msteams token 0: request failed' });
    const before = standIn.requests.length;
    const plain = {
      ...message({ text: 'x' }),
      metadata: { ...message({ text: 'x' }).metadata, serviceUrl: standIn.baseUrl },
    };
    expect(await teams.sendResponse(plain, connection(), { fetch })).toEqual({
      ok: false,
      retryable: false,
      error: 'msteams: serviceUrl is not https',
    });
    expect(standIn.requests.length).toBe(before);
  });

  it('sends typing to the conversation and renews the token shortly before it expires', async () => {
    let clock = Date.parse('2026-11-21T10:00:00.000Z');
    const teams = createMsTeamsAdapter({ now: () => new Date(clock) });
    const http = { fetch, apiBaseUrl: standIn.baseUrl };
    const tokensBefore = tokenCalls().length;
    const first = connectorCalls().length;
    await teams.sendTypingIndicator?.(connection(), personal, message({ text: '' }).metadata, http);
    clock += 50 * 60 * 1000;
    await teams.sendTypingIndicator?.(connection(), personal, message({ text: '' }).metadata, http);
    expect(tokenCalls().length - tokensBefore).toBe(1);
    // expires_in 3599 s: renewed 5 minutes before the end.
    clock += 5 * 60 * 1000;
    await teams.sendTypingIndicator?.(connection(), personal, message({ text: '' }).metadata, http);
    expect(tokenCalls().length - tokensBefore).toBe(2);
    const calls = connectorCalls().slice(first);
    expect(calls.map((c) => [c.path, c.body])).toEqual(
      Array.from({ length: 3 }, () => [
        `/v3/conversations/${encodeURIComponent(personal)}/activities`,
        { type: 'typing' },
      ]),
    );
    standIn.connectorAnswers.push({ status: 403, body: { error: { code: 'BotNotInConversationRoster' } } });
    await expect(
      teams.sendTypingIndicator?.(connection(), personal, message({ text: '' }).metadata, http),
    ).rejects.toThrow('msteams 403: BotNotInConversationRoster');
  });
});

describe('Teams verifyRequest against a JWKS served over HTTP', () => {
  it('verifies a real RS256 token by the key of the served key set, and nothing else', async () => {
    const adapter = createMsTeamsAdapter({ openIdMetadataUrl: standIn.metadataUrl });
    const connection = teamsConnection;
    const activity = { ...personalMessage, serviceUrl: SERVICE_URL };
    const token = await standIn.issuer.sign({
      audience: connection.credentials.appId ?? '',
      serviceUrl: SERVICE_URL,
    });
    expect(await adapter.verifyRequest(request(activity, `Bearer ${token}`), connection)).toBe(true);
    const foreign = await standIn.issuer.sign({
      audience: connection.credentials.appId ?? '',
      serviceUrl: SERVICE_URL,
      foreignKey: true,
    });
    expect(await adapter.verifyRequest(request(activity, `Bearer ${foreign}`), connection)).toBe(false);
    const keyFetches = standIn.requests.filter((r) => r.path === '/v1/.well-known/keys');
    expect(keyFetches).toHaveLength(1);
  });
});
