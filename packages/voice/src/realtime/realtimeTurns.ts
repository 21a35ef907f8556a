import type { RealtimeUsage } from './realtimeProvider.js';

/** One realtime response as the agent side records it (the runtime's RealtimeResponseFacts). */
export interface RealtimeResponseRecord {
  responseId: string;
  provider: string;
  model: string;
  status: 'completed' | 'cancelled' | 'failed' | 'incomplete';
  usage: RealtimeUsage;
  startedAt: Date;
  latencyMs: number;
  timeToFirstAudioMs: number | null;
  transcript: string;
  functionCalls: string[];
  error?: { code: string; message: string };
}

/**
 * The agent side of a realtime call, one turn per caller utterance (the runtime's
 * RealtimeConversation / RealtimeTurn, which fit these shapes): it runs the tools the model calls
 * and records the turn.
 */
export interface RealtimeAgentTurn {
  runTool(call: { id: string; name: string; arguments: string }): Promise<{
    output: string;
    status: 'ok' | 'error';
    ending: boolean;
  }>;
  recordResponse(facts: RealtimeResponseRecord): void;
  finish(input: { userText: string; agentText: string; interrupted: boolean }): Promise<{
    sessionId: string;
    ended: boolean;
  }>;
}

export interface RealtimeAgentConversation {
  readonly sessionId: string;
  beginTurn(): RealtimeAgentTurn;
}

/** A turn of the call: the caller's utterance (item), the responses to it, whether it is recorded. */
export interface TurnState {
  /** The provider's input item (null: a response the caller's speech did not start). */
  itemId: string | null;
  turn: RealtimeAgentTurn;
  /** The caller's transcript; null until the provider sent it (or gave up). */
  userText: string | null;
  agentText: string[];
  interrupted: boolean;
  /** Responses started and not done. */
  pending: number;
  /** No more responses will come for it (a response ended without function calls, or a later turn began). */
  answered: boolean;
  hadResponse: boolean;
  speechStoppedAt: number | null;
  responseTimed: boolean;
  recording: Promise<void> | null;
  transcriptTimer: NodeJS.Timeout | null;
}

export function newTurnState(itemId: string | null, turn: RealtimeAgentTurn): TurnState {
  return {
    itemId,
    turn,
    userText: null,
    agentText: [],
    interrupted: false,
    pending: 0,
    answered: false,
    hadResponse: false,
    speechStoppedAt: null,
    responseTimed: false,
    recording: null,
    transcriptTimer: null,
  };
}

/** A turn is recorded once answered and transcribed (or given up on), in the order turns began. */
export const readyToRecord = (t: TurnState): boolean =>
  t.recording === null && t.answered && t.pending === 0 && t.userText !== null;
