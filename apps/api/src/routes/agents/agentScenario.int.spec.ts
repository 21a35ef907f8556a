import { createChannelAdapters, createGuardedFetch, parseCallbackAllowlist } from '@parley/channels';
import { type RecordedRequest, startStandIn } from '@parley/channels/testing';
import { listLedger, llmLedgerProjection } from '@parley/projection-llm-ledger';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
} from '@parley/projection-runner';
import { listSessions, sessionSummariesProjection } from '@parley/projection-session-summaries';
import { createTraceReads, tracesProjection } from '@parley/projection-traces';
import { createAgentStore, createAnthropicProvider, createOpenAiCompatibleProvider } from '@parley/runtime';
import {
  anthropicAnswer,
  openAiAnswer,
  startVendorStandIn,
  type VendorStandIn,
} from '@parley/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caughtUp, startOrderService, whatsappWebhook } from '../../testing/agentScenario.js';
import { type ChannelWorld, createChannelWorld } from '../../testing/channels/channelWorld.js';

/**
 * The end-to-end scenario, once per vendor wire format (OpenAI chat completions through
 * the openai SDK, Anthropic Messages through @anthropic-ai/sdk, each against a local stand-in
 * replaying that vendor's answers): a WhatsApp user asks; the model calls an http tool on a local
 * service (twice in parallel, one call failing); the model hands off to a second agent, which
 * presents an ACTION_SET that reaches WhatsApp as native reply buttons; the user taps one; the
 * agent ends the conversation as resolved. Then the read models: the session summary, the ledger,
 * the trace metrics.
 */
const ORDER_TOKEN = 'orders-api-token-3c9f';
const projections = [sessionSummariesProjection, llmLedgerProjection, tracesProjection];
let world: ChannelWorld;
let runner: ProjectionRunner;
let openai: VendorStandIn;
let anthropic: VendorStandIn;
let orders: Awaited<ReturnType<typeof startOrderService>>;
let whatsapp: { baseUrl: string; requests: RecordedRequest[]; close(): Promise<void> };

beforeAll(async () => {
  openai = await startVendorStandIn();
  anthropic = await startVendorStandIn();
  orders = await startOrderService(ORDER_TOKEN);
  let n = 0;
  whatsapp = await startStandIn(() => ({
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [{ wa_id: '16505551234' }],
      messages: [{ id: `wamid.OUT${++n}` }],
    },
  }));
  world = await createChannelWorld({
    adapters: createChannelAdapters(),
    migrations: [projectionRunnerMigrations],
    providers: [
      createOpenAiCompatibleProvider({
        baseUrl: `${openai.origin}/v1`,
        apiKey: 'sk-test-scenario',
        maxRetries: 0,
      }),
      createAnthropicProvider({ apiKey: 'sk-ant-test-scenario', baseUrl: anthropic.origin, maxRetries: 0 }),
    ],
    runtime: {
      // The SSRF-guarded fetch, as in production; the local order service is allowlisted.
      toolFetch: createGuardedFetch({ allowlist: parseCallbackAllowlist('127.0.0.1/32') }),
    },
  });
  runner = createProjectionRunner({
    pool: world.db.pool,
    store: world.store,
    projections,
    pollIntervalMs: 20,
  });
  await runner.start();
}, 60_000);
afterAll(async () => {
  await runner?.stop();
  await world?.close();
  await Promise.all([openai?.close(), anthropic?.close(), orders?.close(), whatsapp?.close()]);
});

const vendors = [
  {
    vendor: 'OpenAI',
    provider: 'openai-compatible',
    model: 'gpt-4o-mini',
    answer: openAiAnswer,
    api: () => openai,
    phone: '106540352242901',
  },
  {
    vendor: 'Anthropic',
    provider: 'anthropic',
    model: 'claude-sonnet-4-20250514',
    answer: anthropicAnswer,
    api: () => anthropic,
    phone: '106540352242902',
  },
] as const;

describe.each(vendors)(
  'the agent scenario with the $vendor wire format',
  ({ provider, model, answer, api, phone }) => {
    it('tool → handoff → WhatsApp reply buttons → tap → resolved, and the read models agree', async () => {
      const connection = await world.connect({
        channelType: 'whatsapp',
        externalIdentifier: phone,
        credentials: { accessToken: 'EAAG-wa-token', appSecret: 'wa-app-secret', verifyToken: 'wa-verify' },
        settings: { apiBaseUrl: whatsapp.baseUrl },
      });
      await world.connections.update(connection.projectId, connection.id, { agentName: 'concierge' });
      const agents = createAgentStore(world.db.pool, world.keyring);
      await agents.create(connection.projectId, {
        name: 'concierge',
        provider,
        model,
        systemPrompt: 'You answer questions about orders.',
        tools: [
          {
            name: 'order_status',
            description: 'The status of an order',
            parameters: {
              type: 'object',
              properties: { orderId: { type: 'string' } },
              required: ['orderId'],
            },
            implementation: {
              type: 'http',
              method: 'GET',
              url: `${orders.origin}/orders/{{args.orderId}}`,
              auth: { type: 'bearer', secret: 'ORDERS_TOKEN' },
              retries: 0,
            },
          },
        ],
        secrets: { ORDERS_TOKEN: ORDER_TOKEN },
        handoffs: { targets: ['closer'] },
        guardrails: { pii: { input: 'redact', output: 'off' } },
      });
      await agents.create(connection.projectId, {
        name: 'closer',
        provider,
        model,
        systemPrompt: 'You close conversations.',
        guardrails: { blockedTerms: ['chargeback'], maxReplyChars: 500 },
      });

      const requestsBefore = api().requests.length;
      api().queue(
        answer({
          toolCalls: [
            { name: 'order_status', arguments: { orderId: 'A-1001' } },
            { name: 'order_status', arguments: { orderId: 'ZZ-9' } },
          ],
        }),
        answer({
          text: 'A-1001 shipped.',
          toolCalls: [{ name: 'handoff', arguments: { agent: 'closer', reason: 'order answered' } }],
        }),
        answer({
          toolCalls: [
            {
              name: 'present_actions',
              arguments: {
                prompt: 'Did that answer your question?',
                elements: [
                  { type: 'button', id: 'yes', label: 'Yes, thanks' },
                  { type: 'button', id: 'no', label: 'Not really' },
                ],
              },
            },
          ],
        }),
        answer({ text: 'Your order A-1001 shipped and arrives on June 12.' }),
      );
      const asked = await world.app.inject(
        whatsappWebhook(phone, 'wa-app-secret', 1, {
          text: 'Where are orders A-1001 and ZZ-9? Mail me at sheena@example.com',
        }),
      );
      expect(asked.statusCode).toBe(200);
      expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });

      // The http tool reached the service through the guarded fetch, both calls, with the secret.
      expect(orders.requests.slice(-2).map((r) => [r.url, r.authorization])).toEqual(
        expect.arrayContaining([
          ['/orders/A-1001', `Bearer ${ORDER_TOKEN}`],
          ['/orders/ZZ-9', `Bearer ${ORDER_TOKEN}`],
        ]),
      );
      // What the model was sent: the redacted message; the tool results; the second agent's prompt.
      const calls = api().requests.slice(requestsBefore);
      expect(JSON.stringify(calls[0]!.body)).toContain('Mail me at [email]');
      expect(JSON.stringify(calls[0]!.body)).not.toContain('sheena@example.com');
      expect(JSON.stringify(calls[1]!.body)).toContain('shipped');
      expect(JSON.stringify(calls[1]!.body)).toContain('http_404');
      expect(JSON.stringify(calls[2]!.body)).toContain('You close conversations.');

      // WhatsApp got the reply as text plus native reply buttons.
      const sent = whatsapp.requests.slice(-2).map((r) => r.body as Record<string, unknown>);
      expect(sent[0]).toMatchObject({
        type: 'text',
        text: { body: 'Your order A-1001 shipped and arrives on June 12.' },
      });
      expect(sent[1]).toMatchObject({
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Did that answer your question?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: expect.any(String), title: 'Yes, thanks' } },
              { type: 'reply', reply: { id: expect.any(String), title: 'Not really' } },
            ],
          },
        },
      });
      const yes = (sent[1] as { interactive: { action: { buttons: Array<{ reply: { id: string } }> } } })
        .interactive.action.buttons[0]!.reply.id;

      // The tap: the closer (now the session's agent) ends the conversation as resolved.
      api().queue(
        answer({
          toolCalls: [
            { name: 'end_conversation', arguments: { outcome: 'contained_resolved', reason: 'answered' } },
          ],
        }),
        answer({ text: 'Glad I could help!' }),
      );
      const tapped = await world.app.inject(
        whatsappWebhook(phone, 'wa-app-secret', 2, { buttonId: yes, title: 'Yes, thanks' }),
      );
      expect(tapped.statusCode).toBe(200);
      expect(await world.drain()).toEqual({ inbound: 1, sent: 1, failed: 0 });
      const tapCall = api().requests.at(-2)!;
      expect(JSON.stringify(tapCall.body)).toContain('selected action');
      expect(whatsapp.requests.at(-1)?.body).toMatchObject({
        type: 'text',
        text: { body: 'Glad I could help!' },
      });

      const sessionId = (await world.sessionOf(connection.id, '16505551234'))!;
      const events = await world.events(sessionId);
      expect(events.filter((e) => e.type === 'AgentHandedOff').map((e) => e.data)).toEqual([
        expect.objectContaining({ fromAgent: 'concierge', toAgent: 'closer', target: 'local' }),
      ]);
      await caughtUp(world.db.pool, world.store, projections, events.at(-1)!.position);

      // The session summary: resolved, with exactly the trace events the two turns recorded.
      const page = await listSessions(world.db.pool, {
        projectId: connection.projectId,
        limit: 10,
        offset: 0,
      });
      expect(page.sessions).toHaveLength(1);
      expect(page.sessions[0]).toMatchObject({
        id: sessionId,
        channel: 'whatsapp',
        status: 'completed',
        containmentType: 'contained_resolved',
        messageCount: { user: 2, agent: 2, total: 4 },
        // Turn 1: response, state_change, guardrail_eval (pii, in), 4 llm_call, 4 tool_call
        // (order_status x2, handoff, present_actions) and their 4 tool_result, decision and handoff,
        // guardrail_eval (max_reply_chars, out): 18. Turn 2: response, guardrail_eval (blocked_terms),
        // 2 llm_call, tool_call and tool_result (end_conversation), decision, guardrail_eval
        // (max_reply_chars), state_change: 9.
        traceEventCount: { llm_call: 6, decision: 2, tool_call: 5, error: 0, total: 27 },
      });

      // The ledger: one row per LLM call; every call after a turn's first is a tool_use_iteration.
      const ledger = await listLedger(world.db.pool, {
        projectId: connection.projectId,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 3_600_000),
        sort: { field: 'timestamp', direction: 'asc' },
        dataMode: 'summary',
        limit: 100,
        offset: 0,
      });
      expect(ledger.generations.map((g) => [g.agentName, g.sourceSubtype, g.provider, g.status])).toEqual([
        ['concierge', 'response_generation', provider, 'success'],
        ['concierge', 'tool_use_iteration', provider, 'success'],
        ['closer', 'tool_use_iteration', provider, 'success'],
        ['closer', 'tool_use_iteration', provider, 'success'],
        ['closer', 'response_generation', provider, 'success'],
        ['closer', 'tool_use_iteration', provider, 'success'],
      ]);

      // The metrics: one of five tool calls failed; one of four guardrail evaluations blocked (the PII found).
      const metrics = await createTraceReads(world.db.pool).sessionMetrics(connection.projectId, sessionId);
      expect(metrics).toMatchObject({
        toolCallCount: 5,
        toolSuccessCount: 4,
        toolSuccessRate: 0.8,
        guardrailEvaluationCount: 4,
        guardrailBlockCount: 1,
        guardrailBlockRate: 0.25,
        llmCallCount: 6,
      });
    });
  },
);
