import type { AddressInfo } from 'node:net';
import {
  a2aMigrations,
  createA2aTaskStore,
  createChannelAdapters,
  createGuardedFetch,
  parseCallbackAllowlist,
} from '@parley/channels';
import { createAgentStore, createOpenAiCompatibleProvider } from '@parley/runtime';
import { openAiAnswer, startVendorStandIn, type VendorStandIn } from '@parley/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChannelWorld,
  createChannelWorld,
  PUBLIC_BASE_URL,
} from '../../testing/channels/channelWorld.js';

/**
 * A remote handoff between two Parley agents, both sides real: the concierge's turn (runtime)
 * hands off to `shipping`, reached over A2A on this app's own route (a listening server, through
 * the guarded fetch); the message goes through the inbound pipeline and the worker to the
 * shipping agent, whose model (the OpenAI-format stand-in) must get the forwarded conversation as
 * its prior turns, once, also when the sending side forwards it again with the next message.
 */
let world: ChannelWorld;
let openai: VendorStandIn;
let projectId: string;
let tenantId: string;
let apiKey: string;
const IDENTIFIER = 'shipping-desk';

beforeAll(async () => {
  openai = await startVendorStandIn();
  world = await createChannelWorld({
    migrations: [a2aMigrations],
    adapters: (pool) => createChannelAdapters({ pool }),
    providers: [
      createOpenAiCompatibleProvider({
        baseUrl: `${openai.origin}/v1`,
        apiKey: 'sk-test-a2a',
        maxRetries: 0,
      }),
    ],
    // Remote agents are called through the SSRF guard, as in production; this app's loopback port is allowlisted.
    runtime: { toolFetch: createGuardedFetch({ allowlist: parseCallbackAllowlist('127.0.0.1/32') }) },
    app: ({ db, auth, connections, pipeline }) => ({
      a2a: {
        verifyApiKey: (key) => auth.verifyApiKey(key),
        connections,
        rpc: {
          tasks: createA2aTaskStore(db.pool),
          deliver: (connection, messages) => pipeline.deliver(connection, messages),
          blockingTimeoutMs: 20_000,
        },
        agents: createAgentStore(db.pool),
        publicBaseUrl: PUBLIC_BASE_URL,
      },
    }),
  });
  await world.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = world.app.server.address() as AddressInfo;
  const tenant = await world.auth.createTenant({ name: 'Two agents' });
  tenantId = tenant.id;
  projectId = (await world.auth.createProject({ tenantId, slug: 'handoff' })).id;
  const key = (await world.auth.createApiKey({ projectId, name: 'a2a', scopes: ['chat.write'] })).key;
  apiKey = key;
  const agents = createAgentStore(world.db.pool, world.keyring);
  await agents.create(projectId, {
    name: 'shipping',
    provider: 'openai-compatible',
    model: 'gpt-4o-mini',
    systemPrompt: 'You track shipments.',
  });
  await agents.create(projectId, {
    name: 'concierge',
    provider: 'openai-compatible',
    model: 'gpt-4o-mini',
    systemPrompt: 'You greet and route.',
    handoffs: {
      remote: [
        {
          name: 'shipping',
          url: `http://127.0.0.1:${port}/api/v1/a2a/${IDENTIFIER}`,
          bearerSecret: 'SHIP_KEY',
        },
      ],
    },
    secrets: { SHIP_KEY: key },
  });
  await world.connections.create(projectId, {
    channelType: 'a2a',
    externalIdentifier: IDENTIFIER,
    agentName: 'shipping',
    credentials: {},
    settings: {},
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
  await openai?.close();
});

/** A concierge turn; the shipping side's queued message is worked while it waits on the A2A answer. */
async function turn(message: string, sessionId?: string) {
  let done = false;
  const result = world.runtime
    .runTurn({ projectId, tenantId, message, ...(sessionId ? { sessionId } : { agentName: 'concierge' }) })
    .finally(() => {
      done = true;
    });
  while (!done) {
    await world.drain();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return result;
}

type Sent = { role: string; content: string | null };
const conversationOf = (index: number) =>
  ((openai.requests[index]?.body.messages ?? []) as Sent[]).map((m) => [m.role, m.content]);

describe('A2A inbound message.metadata.history (remote handoff, receiving side)', () => {
  it('the receiving agent’s model gets the forwarded conversation as prior turns, once', async () => {
    openai.queue(openAiAnswer({ text: 'Hello! Which order is it about?' }));
    const first = await turn('My parcel has not arrived');
    openai.queue(
      openAiAnswer({
        toolCalls: [{ name: 'handoff', arguments: { agent: 'shipping', reason: 'tracking' } }],
      }),
      openAiAnswer({ text: 'Order 42 left Lyon this morning.' }),
    );
    const handed = await turn('It is order 42', first.sessionId);
    expect(handed).toMatchObject({ agentName: 'shipping', handedOff: { to: 'shipping', remote: true } });
    expect(handed.reply.text).toBe('Order 42 left Lyon this morning.');

    // Requests: 0 concierge greets, 1 concierge hands off, 2 the shipping agent (over A2A).
    expect(openai.requests).toHaveLength(3);
    expect(conversationOf(2)).toEqual([
      ['system', expect.stringContaining('You track shipments.')],
      ['user', 'My parcel has not arrived'],
      ['assistant', 'Hello! Which order is it about?'],
      ['user', 'It is order 42'],
    ]);

    // The next message goes straight to the remote agent, with the whole conversation forwarded
    // again (its own earlier answer included): the model sees every message once.
    openai.queue(openAiAnswer({ text: 'It arrives tomorrow.' }));
    const next = await turn('When will it arrive?', first.sessionId);
    expect(next.reply.text).toBe('It arrives tomorrow.');
    expect(openai.requests).toHaveLength(4);
    expect(conversationOf(3)).toEqual([
      ['system', expect.stringContaining('You track shipments.')],
      ['user', 'My parcel has not arrived'],
      ['assistant', 'Hello! Which order is it about?'],
      ['user', 'It is order 42'],
      ['assistant', 'Order 42 left Lyon this morning.'],
      ['user', 'When will it arrive?'],
    ]);
  });

  it('a retried message/send (same messageId, same history) is one turn: the model is asked once', async () => {
    const before = openai.requests.length;
    openai.queue(openAiAnswer({ text: 'Your refund is on its way.' }));
    const params = {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'handoff-retry-1',
        contextId: 'remote-session-7',
        parts: [{ kind: 'text', text: 'And my refund?' }],
        metadata: {
          history: [
            { role: 'user', text: 'I returned order 7' },
            { role: 'agent', text: 'Passing you to shipping.' },
          ],
        },
      },
      configuration: { blocking: false },
    };
    const send = () =>
      world.app.inject({
        method: 'POST',
        url: `/api/v1/a2a/${IDENTIFIER}`,
        headers: { authorization: `Bearer ${apiKey}` },
        payload: { jsonrpc: '2.0', id: 1, method: 'message/send', params },
      });
    const first = (await send()).json();
    expect((await send()).json().result.id).toBe(first.result.id);
    await world.drain();
    expect((await send()).json().result.id).toBe(first.result.id);
    await world.drain();
    expect(openai.requests.length).toBe(before + 1);
    expect(conversationOf(before)).toEqual([
      ['system', expect.stringContaining('You track shipments.')],
      ['user', 'I returned order 7'],
      ['assistant', 'Passing you to shipping.'],
      ['user', 'And my refund?'],
    ]);
  });
});
