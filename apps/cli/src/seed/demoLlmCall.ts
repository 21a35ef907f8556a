import { completeUsage } from '@parley/events';
import type { Random } from './random.js';
import { type DemoModel, MODELS } from './vocabulary.js';

export interface DemoCallOptions {
  agentName: string;
  source: string;
  sourceSubtype: string;
  /** Later turns send longer prompts (the history grows). */
  turn: number;
  streaming: boolean;
  /** A failed call: an error status, no completion. */
  failed?: boolean;
  /** The session's scope, absent for design-time calls. */
  session?: {
    sessionId: string;
    environment: string;
    channel: string;
    channelType?: string;
    traceId: string;
    spanId: string;
  };
  /** Kept as the payload on some calls. */
  conversation?: { question: string; reply: string };
}

const round8 = (usd: number) => Math.round(usd * 1e8) / 1e8;

function cost(model: DemoModel, input: number, cached: number, output: number): number {
  const [perInput, perOutput] = model.price;
  // Cached prompt tokens at half price, as most providers bill them.
  return round8(((input - cached) * perInput + cached * perInput * 0.5 + output * perOutput) / 1e6);
}

/** The data of an `llm.call` item without its `startedAt` (the caller places it in time). */
export function demoLlmCall(random: Random, options: DemoCallOptions): Record<string, unknown> {
  const model = random.weighted(MODELS.map((m) => [m, m.weight] as const));
  const failed = options.failed === true;
  const inputTokens = 350 + options.turn * 260 + random.int(0, 700);
  const cachedTokens = random.chance(0.4) ? Math.floor(inputTokens * random.int(3, 8) * 0.1) : 0;
  const completionTokens = failed ? 0 : random.int(18, 320);
  const reasoningTokens =
    !failed && model.model?.startsWith('claude-3-5-sonnet') && random.chance(0.3) ? random.int(50, 400) : 0;
  const usage = completeUsage({ inputTokens, cachedTokens, completionTokens, reasoningTokens });
  const latencyMs = failed ? random.pick([0, random.int(200, 30_000)]) : random.int(240, 4_200);
  const streaming = options.streaming && !failed;
  const statusCode = failed ? random.pick([0, 429, 500, 503]) : 200;
  const data: Record<string, unknown> = {
    callId: `llm_${random.hex(24)}`,
    ...(model.provider && { provider: model.provider }),
    ...(model.model && { model: model.model }),
    agentName: options.agentName,
    status: failed ? 'failed' : 'success',
    statusCode,
    usage,
    latencyMs,
    timeToFirstTokenMs: streaming ? Math.min(latencyMs, random.int(110, 900)) : latencyMs,
    streamingUsed: streaming,
    cost: failed ? 0 : cost(model, inputTokens, cachedTokens, usage.outputTokens),
    priceCardVersion: '2026-10-01',
    source: options.source,
    sourceSubtype: options.sourceSubtype,
  };
  const session = options.session;
  if (session) {
    data.sessionId = session.sessionId;
    data.environment = session.environment;
    data.channel = session.channel;
    if (session.channelType) data.channelType = session.channelType;
    data.traceId = session.traceId;
    data.spanId = session.spanId;
  }
  if (options.conversation && !failed && random.chance(0.25)) {
    data.payload = {
      prompt: [
        { role: 'system', content: `You are ${options.agentName}, a helpful customer-support agent.` },
        { role: 'user', content: options.conversation.question },
      ],
      response: { role: 'assistant', content: options.conversation.reply },
    };
  }
  return data;
}
