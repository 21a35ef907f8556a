import { jsonAnswer, type StandInAnswer } from './vendorStandIn.js';

/**
 * Test-only: answers in each vendor's wire format, shaped as the recorded ones
 * (providers/openai/recordedOpenAiResponses.ts, providers/anthropic/recordedAnthropicResponses.ts)
 * with the tool calls or text a scenario needs. Non-streamed (what channel turns ask for).
 */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

let counter = 0;
const nextId = (prefix: string) =>
  `${prefix}${(++counter).toString(36).padStart(6, '0')}${Date.now().toString(36)}`;

/** An OpenAI chat completion: text, or tool calls (parallel when several). */
export function openAiAnswer(
  answer: { text?: string; toolCalls?: ScriptedToolCall[] },
  model = 'gpt-4o-mini-2024-07-18',
): StandInAnswer {
  const toolCalls = (answer.toolCalls ?? []).map((c) => ({
    id: nextId('call_'),
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
  return jsonAnswer(200, {
    id: nextId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text ?? null,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: toolCalls.length === 0 ? 'stop' : 'tool_calls',
      },
    ],
    usage: {
      prompt_tokens: 812,
      completion_tokens: 41,
      total_tokens: 853,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_06737a9306',
  });
}

/** An Anthropic Messages API message: text, then tool_use blocks. */
export function anthropicAnswer(
  answer: { text?: string; toolCalls?: ScriptedToolCall[] },
  model = 'claude-sonnet-4-20250514',
): StandInAnswer {
  const tools = (answer.toolCalls ?? []).map((c) => ({
    type: 'tool_use',
    id: nextId('toolu_01'),
    name: c.name,
    input: c.arguments,
  }));
  return jsonAnswer(200, {
    id: nextId('msg_01'),
    type: 'message',
    role: 'assistant',
    model,
    content: [...(answer.text === undefined ? [] : [{ type: 'text', text: answer.text }]), ...tools],
    stop_reason: tools.length === 0 ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 790,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 38,
      service_tier: 'standard',
    },
  });
}
