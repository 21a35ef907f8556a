import type { IngestItemKind } from '@parley/ingest';
import { demoLlmCall } from './demoLlmCall.js';
import type { Random } from './random.js';
import { GUARDRAILS, isVoice, type Outcome, RUNTIME_PURPOSES, TOPICS } from './vocabulary.js';

/** What the turns of one session share; `at` is the time (ms after the session's start) so far. */
export interface DemoTurnContext {
  random: Random;
  add(type: IngestItemKind, data: Record<string, unknown>): void;
  sessionId: string;
  traceId: string;
  agentName: string;
  channel: string;
  channelType: string | undefined;
  environment: string;
  at: number;
}

/**
 * One user turn: the message, the agent's trace (decision, guardrail, tools, LLM calls, response)
 * and the reply. The last turn carries the outcome: a handoff, a failure, or a message left
 * unanswered by a user who then went away. The turn's spans nest as a real agent's do: every step
 * is a child of one `agent_turn` span that lasts the whole turn, and a tool's result is a child of
 * its call (the console's waterfall and GET …/traces/{spanId}/children show the tree).
 */
export function demoTurn(
  ctx: DemoTurnContext,
  turn: { turn: number; last: boolean; outcome: Outcome },
): void {
  const rootSpanId = ctx.random.hex(16);
  const startedAt = ctx.at;
  turnSteps(ctx, turn, rootSpanId);
  ctx.add('trace.event', {
    traceId: ctx.traceId,
    spanId: rootSpanId,
    eventType: 'state_change',
    name: 'agent_turn',
    status: 'ok',
    startedAt,
    durationMs: Math.max(ctx.at - startedAt, 0),
    attributes: { turn: turn.turn },
  });
}

function turnSteps(
  ctx: DemoTurnContext,
  turn: { turn: number; last: boolean; outcome: Outcome },
  rootSpanId: string,
): void {
  const { random, add, traceId } = ctx;
  const voice = isVoice(ctx.channel);
  const { question, tool: topicTool, reply } = random.pick(TOPICS);
  const messageId = `msg_${random.hex(20)}`;
  const span = (
    eventType: string,
    data: Record<string, unknown>,
    durationMs: number,
    parentSpanId: string = rootSpanId,
  ): string => {
    const spanId = random.hex(16);
    add('trace.event', {
      traceId,
      spanId,
      parentSpanId,
      eventType,
      startedAt: ctx.at,
      durationMs,
      ...data,
    });
    ctx.at += durationMs;
    return spanId;
  };

  add('message.user', {
    messageId,
    ...(random.chance(0.5) && { externalMessageId: `ext-${random.hex(10)}` }),
    text: question,
    ...(voice && { channelMetadata: { sttConfidence: random.int(70, 99) / 100, language: 'en-GB' } }),
    ...(ctx.channel === 'email' && { channelMetadata: { subject: question.slice(0, 40) } }),
    ...(random.chance(0.3) && { sentAt: ctx.at - random.int(50, 900) }),
    receivedAt: ctx.at,
  });
  ctx.at += random.int(20, 200);
  span(
    'decision',
    {
      name: 'route_intent',
      decisionKind: 'intent',
      status: 'ok',
      attributes: { confidence: random.int(55, 99) / 100 },
    },
    random.int(5, 60),
  );

  if (random.chance(0.4)) {
    const blocked = random.chance(0.06);
    span(
      'guardrail_eval',
      { name: random.pick(GUARDRAILS), status: blocked ? 'blocked' : 'ok' },
      random.int(30, 250),
    );
  }
  if (random.chance(0.5)) {
    const tool = topicTool;
    const failedTool = random.chance(0.1);
    const call = span(
      'tool_call',
      { name: tool, status: 'ok', attributes: { parameters: { reference: random.hex(8) } } },
      random.int(5, 20),
    );
    span(
      'tool_result',
      {
        name: tool,
        status: failedTool ? 'error' : 'ok',
        ...(failedTool && { attributes: { errorCode: 'UPSTREAM_TIMEOUT' } }),
      },
      random.int(80, 1_500),
      call,
    );
  }

  const failing = turn.last && turn.outcome.status === 'failed';
  const purposes: Array<readonly [string, string]> = [['runtime', 'response_generation']];
  if (random.chance(0.3)) purposes.unshift(random.weighted(RUNTIME_PURPOSES));
  if (voice && random.chance(0.3)) purposes.unshift(['runtime', 'contextual_filler_generation']);
  if (voice && turn.last && turn.outcome.status === 'escalated')
    purposes.push(['runtime', 'sip_handoff_summary']);
  for (const [i, [source, sourceSubtype]] of purposes.entries()) {
    const spanId = random.hex(16);
    const call = demoLlmCall(random, {
      agentName: ctx.agentName,
      source,
      sourceSubtype,
      turn: turn.turn,
      streaming: (voice || ctx.channel === 'web_chat' || ctx.channel === 'sdk_web') && random.chance(0.7),
      failed: failing && i === purposes.length - 1,
      session: {
        sessionId: ctx.sessionId,
        environment: ctx.environment,
        channel: ctx.channel,
        channelType: ctx.channelType,
        traceId,
        spanId,
      },
      conversation: { question, reply },
    });
    add('llm.call', { ...call, startedAt: ctx.at });
    add('trace.event', {
      traceId,
      spanId,
      parentSpanId: rootSpanId,
      eventType: 'llm_call',
      name: sourceSubtype,
      status: call.status === 'success' ? 'ok' : 'error',
      llmCallId: call.callId,
      startedAt: ctx.at,
      durationMs: call.latencyMs,
    });
    ctx.at += call.latencyMs as number;
  }
  if (failing) {
    span(
      'error',
      { name: 'llm_provider_error', status: 'error', attributes: { errorCode: 'PROVIDER_UNAVAILABLE' } },
      0,
    );
    return;
  }
  if (turn.last && turn.outcome.status === 'abandoned') return;
  if (turn.last && turn.outcome.status === 'escalated') {
    span('decision', { name: 'escalate', decisionKind: 'handoff', status: 'ok' }, random.int(5, 40));
    span(
      'handoff',
      {
        name: 'human-queue',
        status: 'ok',
        attributes: { queue: random.pick(['billing', 'tier-2', 'bookings']) },
      },
      random.int(100, 900),
    );
  }
  span('response', { name: 'reply', status: 'ok' }, random.int(5, 50));
  add('message.agent', {
    messageId: `msg_${random.hex(20)}`,
    inReplyTo: messageId,
    agentName: ctx.agentName,
    text: reply,
    ...(random.chance(0.9) && { isLlmGenerated: true }),
    ...(random.chance(0.05) && { usedFallback: true }),
    repliedAt: ctx.at,
  });
  ctx.at += random.int(200, 1_500);
}
