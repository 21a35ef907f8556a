import { estimateUsage, ZERO_USAGE } from '../estimateUsage.js';
import type { LlmMessage, LlmProvider, LlmResponse, ToolCall } from '../types.js';
import { parseScript, type Script } from './parseScript.js';
import { clip, toolCallsOf } from './scriptToolCalls.js';

export const SCRIPTED_PROVIDER = 'scripted';
/** The model every scripted answer reports, whatever model the agent names: nothing pretends to be a model. */
export const SCRIPTED_MODEL = 'scripted-1';

export interface ScriptedProviderOptions {
  /** Varies tool call ids and the wording of plain replies; same seed, same answers. Default 0. */
  seed?: number;
  /** Clock for latency and time to first token (tests). */
  now?: () => number;
}

/**
 * The offline provider: deterministic answers driven by keywords in the last user message (see
 * parseScript and the README). One user message is answered in at most two calls: when its
 * commands stand for tool calls (`/tool`, and the system tools behind `/handoff`, `/end`,
 * `/escalate`, `/buttons`, `/select`, `/input`, `/media`), the first call asks for them all at once
 * and the call after their results answers with text. Every reply starts with "(scripted)".
 */
export function createScriptedProvider(options: ScriptedProviderOptions = {}): LlmProvider {
  const seed = options.seed ?? 0;
  const now = options.now ?? (() => performance.now());

  return {
    name: SCRIPTED_PROVIDER,
    async complete(req, onDelta) {
      const startedAt = now();
      req.signal?.throwIfAborted();
      const lastUser = findLastIndex(req.messages, (m) => m.role === 'user');
      const userText = req.messages[lastUser]?.content ?? '';
      const script = parseScript(userText);
      const after = req.messages.slice(lastUser + 1);
      const commands = script.commands;

      for (const command of commands) if (command.keyword === 'delay') await sleep(command.ms, req.signal);
      const base = { provider: SCRIPTED_PROVIDER, model: SCRIPTED_MODEL, streamingUsed: req.stream };
      const finish = (
        fields: Pick<LlmResponse, 'text' | 'toolCalls' | 'finishReason'> & Partial<LlmResponse>,
        reasoningTokens = 0,
      ): LlmResponse => {
        const latencyMs = Math.round(now() - startedAt);
        return {
          usage: estimateUsage(req, { text: fields.text, toolCalls: fields.toolCalls, reasoningTokens }),
          latencyMs,
          timeToFirstTokenMs: latencyMs,
          statusCode: 200,
          ...base,
          ...fields,
        };
      };

      let firstDeltaAt: number | undefined;
      /** Word by word, yielding to the event loop between words as a network stream would. */
      const streamDeltas = async (text: string): Promise<void> => {
        if (!req.stream || onDelta === undefined) return;
        for (const piece of text.match(/\s*\S+\s*/g) ?? []) {
          await yieldToEventLoop();
          req.signal?.throwIfAborted();
          firstDeltaAt ??= now();
          onDelta(piece);
        }
      };
      const withFirstDelta = (response: LlmResponse): LlmResponse =>
        firstDeltaAt === undefined
          ? response
          : { ...response, timeToFirstTokenMs: Math.round(firstDeltaAt - startedAt) };

      const error = commands.find((c) => c.keyword === 'error');
      if (error !== undefined) {
        // A failed call reports no usage, as providers do on an error status.
        return {
          ...finish({ text: '', toolCalls: [], finishReason: 'error' }),
          usage: { ...ZERO_USAGE },
          statusCode: error.statusCode,
          error: {
            code: 'scripted_error',
            message: `Scripted failure: /error ${error.statusCode}`,
            ...(error.statusCode === 429 ? { retryAfterSeconds: 1 } : {}),
          },
        };
      }

      const scripted = toolCallsOf(commands);
      const toolsAlreadyCalled = after.some((m) => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0);
      if (scripted.length > 0 && !toolsAlreadyCalled) {
        const toolCalls: ToolCall[] = scripted.map((call, i) => ({
          id: `call_${hash(`${seed}:${lastUser}:${i}:${call.name}:${userText}`).toString(16).padStart(8, '0')}`,
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        }));
        return finish({ text: '', toolCalls, finishReason: 'tool_calls' });
      }

      // Called again after an answer of its own for this message: answer plainly, so the calls
      // fire once per user message and loops end.
      if (after.some((m) => m.role === 'assistant' && (m.toolCalls?.length ?? 0) === 0)) {
        const text = `(scripted) Continuing from here: "${clip(script.text || userText, 200)}".`;
        await streamDeltas(text);
        return withFirstDelta(finish({ text, toolCalls: [], finishReason: 'stop' }));
      }

      const reasoningTokens = commands.reduce((sum, c) => sum + (c.keyword === 'reason' ? c.tokens : 0), 0);
      const truncated = commands.some((c) => c.keyword === 'length');
      let text = replyText(script, after, seed);
      if (truncated) text = text.slice(0, Math.max(10, Math.floor(text.length / 2)));

      await streamDeltas(text);
      return withFirstDelta(
        finish({ text, toolCalls: [], finishReason: truncated ? 'length' : 'stop' }, reasoningTokens),
      );
    },
  };
}

const SYSTEM_TOOLS = ['handoff', 'escalate', 'end_conversation', 'present_actions', 'attach_media'] as const;
type SystemTool = (typeof SYSTEM_TOOLS)[number];
const isSystemTool = (name: string): name is SystemTool => (SYSTEM_TOOLS as readonly string[]).includes(name);

/** What a system tool's result reads as in the reply. */
function systemSentence(name: SystemTool, args: Record<string, unknown>, content: string): string | null {
  const failed = content.startsWith('{"error"');
  if (failed) return null;
  switch (name) {
    case 'handoff':
      return `Handing you over to ${String(args.agent)}.`;
    case 'escalate':
      return 'Passing you to a human colleague.';
    case 'end_conversation':
      return `Ending the conversation (${String(args.outcome)}).`;
    case 'present_actions':
      return 'Choose an option.';
    case 'attach_media':
      return 'Here is the file.';
    default: {
      const exhaustive: never = name;
      return exhaustive;
    }
  }
}

function replyText(script: Script, after: readonly LlmMessage[], seed: number): string {
  const say = script.commands.find((c) => c.keyword === 'say');
  if (say !== undefined) return `(scripted) ${say.text}`;
  const parts: string[] = [];
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const message of after) {
    for (const call of message.toolCalls ?? []) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.arguments) as Record<string, unknown>;
      } catch {
        args = {};
      }
      calls.set(call.id, { name: call.name, args });
    }
  }
  for (const message of after) {
    if (message.role !== 'tool') continue;
    const call = (message.toolCallId && calls.get(message.toolCallId)) || { name: 'tool', args: {} };
    const sentence = isSystemTool(call.name) ? systemSentence(call.name, call.args, message.content) : null;
    if (sentence !== null) parts.push(sentence);
    else parts.push(`${call.name} returned ${clip(message.content, 200)}.`);
  }
  for (const problem of script.problems) parts.push(`Could not read ${problem}.`);
  if (parts.length === 0) {
    const openers = ['You said', 'I received', 'Noted'];
    const opener = openers[hash(`${seed}:${script.text}`) % openers.length];
    parts.push(script.text === '' ? 'Nothing to answer.' : `${opener}: "${clip(script.text, 200)}".`);
  }
  return `(scripted) ${parts.join(' ')}`;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i] as T)) return i;
  return -1;
}

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
