import { completeUsage, type EventDataInput, type JsonValue } from '@parley/events';
import type { Agent } from '../../agents/store.js';
import type { TurnStreamEvent, TurnUsage } from '../types.js';
import type { TraceLog } from './traceLog.js';

export type LlmCallData = EventDataInput<'LlmCallRecorded'>;

/** Everything a turn's stages share: who, where, the trace and the LLM facts collected so far. */
export interface TurnContext {
  scope: { sessionId: string; projectId: string };
  tenantId: string;
  session: {
    channel: string;
    channelType: string | undefined;
    environment: import('@parley/events').Environment;
    channelUserId: string | undefined;
  };
  storePayloads: boolean;
  userMessageId: string;
  replyMessageId: string;
  messageMetadata: Record<string, unknown> | undefined;
  origin: Record<string, unknown> | null;
  trace: TraceLog;
  llmCalls: LlmCallData[];
  usage: TurnUsage;
  stream: boolean;
  signal: AbortSignal | undefined;
  onEvent: ((event: TurnStreamEvent) => void) | undefined;
  now: () => Date;
  /** The agents' secrets, decrypted at most once per agent per turn. */
  secretsOf(agent: Agent): Promise<Record<string, string>>;
}

export const ZERO_USAGE: TurnUsage = completeUsage({ inputTokens: 0, completionTokens: 0 });

export const addUsage = (a: TurnUsage, b: TurnUsage): TurnUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  cachedTokens: a.cachedTokens + b.cachedTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

/** JSON-safe copy (drops undefined, functions); payloads and attributes must be plain JSON. */
export const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A JSON-safe copy of an object, typed as the JSON the event catalog holds (toAppend checks it). */
export const jsonObject = (value: Record<string, unknown>): Record<string, JsonValue> =>
  JSON.parse(JSON.stringify(value));
