import type { OutboundConverter } from './realtimeAudio.js';
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

/**
 * The call's turns, by provider input item, and their recording: each is recorded once answered
 * and transcribed, waiting at most `transcriptWaitMs` for the transcript, in the order they began
 * (a turn not ready holds the later ones).
 */
export class RealtimeTurns {
  private readonly turns: TurnState[] = [];
  private readonly byItem = new Map<string, TurnState>();
  /** Turns recorded with an answer. */
  recorded = 0;

  constructor(
    private readonly conversation: RealtimeAgentConversation,
    private readonly options: {
      transcriptWaitMs: number;
      onRecorded(result: { sessionId: string; ended: boolean }): void;
      onError(err: unknown): void;
    },
  ) {}

  /** The turn of a provider input item (a new one for an unknown item; null: a turn without caller item). */
  of(itemId: string | null): TurnState {
    const known = itemId === null ? undefined : this.byItem.get(itemId);
    if (known !== undefined) return known;
    const turn = newTurnState(itemId, this.conversation.beginTurn());
    this.turns.push(turn);
    if (itemId !== null) this.byItem.set(itemId, turn);
    return turn;
  }

  /** Turns before `turn` that wait for no response get no more. */
  closeBefore(turn: TurnState): void {
    for (const t of this.turns) if (t !== turn && t.pending === 0) t.answered = true;
  }

  /** Turns that had at least one response. */
  answeredCount(): number {
    return this.turns.filter((t) => t.hadResponse).length;
  }

  /** Records every turn that is ready; `force` (the call ended): every turn with anything in it. */
  record(force = false): void {
    for (const turn of this.turns) {
      if (turn.recording !== null) continue;
      if (turn.answered && !turn.hadResponse) {
        // An utterance nothing answered (a false start): not a turn.
        turn.recording = Promise.resolve();
        continue;
      }
      if (force) {
        if (!turn.hadResponse && !turn.userText) continue;
        turn.answered = true;
        turn.pending = 0;
        turn.userText ??= '';
      }
      if (turn.answered && turn.pending === 0 && turn.userText === null) this.awaitTranscript(turn);
      if (!readyToRecord(turn)) return;
      this.finish(turn);
    }
  }

  private finish(turn: TurnState): void {
    if (turn.transcriptTimer !== null) clearTimeout(turn.transcriptTimer);
    if (turn.hadResponse) this.recorded += 1;
    turn.recording = turn.turn
      .finish({
        userText: turn.userText ?? '',
        agentText: turn.agentText.join(' '),
        interrupted: turn.interrupted,
      })
      .then((result) => this.options.onRecorded(result))
      .catch((err: unknown) => this.options.onError(err));
  }

  private awaitTranscript(turn: TurnState): void {
    if (turn.transcriptTimer !== null) return;
    turn.transcriptTimer = setTimeout(() => {
      turn.userText ??= '';
      this.record();
    }, this.options.transcriptWaitMs);
  }

  /** The call ended: records what there is and waits for every recording. */
  async close(): Promise<void> {
    for (const turn of this.turns) if (turn.transcriptTimer !== null) clearTimeout(turn.transcriptTimer);
    this.record(true);
    await Promise.all(this.turns.map((t) => t.recording));
  }
}

/** A response of the model in progress: its turn, timing, transcript, function calls and audio. */
export interface ResponseState {
  id: string;
  turn: TurnState;
  startedAt: Date;
  t0: number;
  firstAudioAt: number | null;
  transcript: string;
  calls: Array<{ name: string; done: Promise<{ callId: string; output: string; ending: boolean }> }>;
  cancelled: boolean;
  /** The assistant item its audio belongs to (for conversation.item.truncate). */
  itemId: string | null;
  /** 20 ms frames of it sent to the caller, the first one when. */
  audioFrames: number;
  firstFrameAt: number | null;
  out: OutboundConverter;
}
