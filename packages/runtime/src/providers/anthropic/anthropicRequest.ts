import type { LlmMessage, LlmRequest, ToolDefinition } from '../types.js';

/** The Messages API request body Parley sends (without `stream`). */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
}

type TextBlock = { type: 'text'; text: string };
type ToolUseBlock = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
type ToolResultBlock = { type: 'tool_result'; tool_use_id: string; content: string };
export type AnthropicBlock = TextBlock | ToolUseBlock | ToolResultBlock;
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** A tool_use block's `input` must be an object: the model's argument text when it is one, else `{}`. */
function inputOf(argumentsJson: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsJson);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function blocksOf(message: LlmMessage): AnthropicBlock[] {
  switch (message.role) {
    case 'tool':
      return [{ type: 'tool_result', tool_use_id: message.toolCallId ?? '', content: message.content }];
    case 'assistant':
      return [
        ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
        ...(message.toolCalls ?? []).map(
          (call): ToolUseBlock => ({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: inputOf(call.arguments),
          }),
        ),
      ];
    case 'user':
      return message.content === '' ? [] : [{ type: 'text', text: message.content }];
    case 'system':
      return [];
    default: {
      const exhaustive: never = message.role;
      throw new Error(`unknown message role ${String(exhaustive)}`);
    }
  }
}

/**
 * Parley's conversation in the Messages API's shape: system messages join the top-level `system`;
 * tool results travel as `tool_result` blocks of a user message; consecutive messages of one role
 * merge (the API alternates user and assistant, and the results of parallel tool calls belong in
 * one user message); empty text blocks are left out (the API refuses them).
 */
export function toAnthropicRequest(req: LlmRequest, maxTokens: number): AnthropicRequestBody {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .filter((c) => c !== '')
    .join('\n\n');
  const messages: AnthropicMessage[] = [];
  for (const message of req.messages) {
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const last = messages.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  return {
    model: req.model,
    max_tokens: maxTokens,
    ...(system === '' ? {} : { system }),
    messages,
    ...(req.tools?.length ? { tools: req.tools.map(toAnthropicTool) } : {}),
  };
}

const toAnthropicTool = (tool: ToolDefinition): AnthropicTool => ({
  name: tool.name,
  ...(tool.description === undefined || tool.description === '' ? {} : { description: tool.description }),
  input_schema: tool.parameters ?? { type: 'object', properties: {} },
});
