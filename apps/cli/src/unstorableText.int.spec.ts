import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFuzzWorld, type FuzzWorld } from './testing/fuzzWorld.js';

/**
 * Issue 17 item 4, request by request, on the whole API: each of these answered 500 (PostgreSQL
 * refusing U+0000, or a `\udXXX` escape in jsonb). Each is now a 400 VALIDATION_ERROR naming its
 * field, in the route's envelope.
 */
let world: FuzzWorld;
let projectId: string;
let sessionId: string;
let subscriptionId: string;
beforeAll(async () => {
  world = await createFuzzWorld();
  projectId = world.known('projectId', '')?.[0] ?? '';
  sessionId = world.known('sessionId', '')?.[0] ?? '';
  subscriptionId = world.known('id', '/webhook-subscriptions')?.[0] ?? '';
}, 180_000);
afterAll(() => world?.close());

const range = 'fromDate=2020-01-01T00:00:00Z&toDate=2100-01-01T00:00:00Z';

interface Case {
  method: 'GET' | 'POST' | 'PATCH';
  url: () => string;
  body?: () => object;
  field: string;
  analytics?: boolean;
}

const CASES: Case[] = [
  {
    method: 'POST',
    url: () => '/api/v1/chat/send',
    body: () => ({ projectId, message: 'hello\u0000world' }),
    field: 'body.message',
  },
  {
    method: 'GET',
    url: () => `/api/public/analytics/projects/${projectId}/sessions?${range}&channel=web%00`,
    field: 'querystring.channel',
    analytics: true,
  },
  {
    method: 'GET',
    url: () => `/api/public/analytics/projects/${projectId}/llm-ledger?${range}&model=gpt%00`,
    field: 'querystring.model',
    analytics: true,
  },
  {
    method: 'GET',
    url: () => `/api/projects/${projectId}/sessions/${sessionId}/traces?eventType=llm%00call`,
    field: 'querystring.eventType',
  },
  {
    method: 'GET',
    url: () => `/api/projects/${projectId}/sessions/export?format=csv&sessionId=s%00`,
    field: 'querystring.sessionId',
  },
  {
    method: 'GET',
    url: () => `/api/projects/${projectId}/webhook-subscriptions/${subscriptionId}/deliveries?messageId=%00`,
    field: 'querystring.messageId',
  },
  {
    method: 'POST',
    url: () => `/api/v1/projects/${projectId}/agents`,
    body: () => ({ name: 'nul-agent', systemPrompt: 'be\u0000kind' }),
    field: 'body.systemPrompt',
  },
  {
    method: 'PATCH',
    url: () => `/api/v1/projects/${projectId}/agents/fuzz-agent`,
    body: () => ({ systemPrompt: 'half \ud83d' }),
    field: 'body.systemPrompt',
  },
  {
    method: 'GET',
    url: () => `/api/public/recordings/projects/${projectId}/sessions/sess%00/recordings`,
    field: 'params.sessionId',
  },
  {
    method: 'GET',
    url: () => `/api/projects/${projectId}/sdk-channels/sdkc_%00`,
    field: 'params.channelId',
  },
  {
    method: 'GET',
    url: () => `/api/projects/${projectId}/webhook-subscriptions/sub_%00`,
    field: 'params.id',
  },
  {
    method: 'GET',
    url: () => `/api/projects/${projectId}/channel-connections/chc_%00abc`,
    field: 'params.id',
  },
  {
    method: 'GET',
    url: () => '/api/v1/a2a/agent%00/.well-known/agent-card.json',
    field: 'params.identifier',
  },
];

describe('text PostgreSQL cannot store, on every kind of API input', () => {
  it.each(CASES.map((c) => [`${c.method} ${c.field}`, c] as const))(
    '%s: 400 naming the field',
    async (_, c) => {
      const res = await world.app.inject({
        method: c.method,
        url: c.url(),
        headers: world.credentials.apiKey,
        ...(c.body === undefined ? {} : { payload: c.body() }),
      });
      expect(res.statusCode, res.body).toBe(400);
      const message = `${c.field}: contains text that cannot be stored (U+0000 or an unpaired surrogate)`;
      expect(res.json()).toEqual(
        c.analytics
          ? {
              success: false,
              error: { code: 'VALIDATION_ERROR', message, details: { field: c.field } },
              message,
              required: '',
            }
          : { success: false, error: { code: 'VALIDATION_ERROR', message } },
      );
    },
  );
});
