import type { RealtimeAudioFormat } from './realtimeAudio.js';

/**
 * The port of native audio (speech-to-speech) models: a realtime session hears the caller's audio,
 * detects the ends of their utterances itself (server-side voice activity detection), answers with
 * audio and calls functions. An implementation speaks one vendor's protocol (openAiRealtime.ts:
 * the OpenAI Realtime API over WebSocket); the call bridge (realtimeCall.ts) only sees this.
 */
export interface RealtimeVoiceProvider {
  /** `voice.realtime.defaultProvider` names it; recorded as the ledger's provider. */
  readonly name: string;
  /** The model a session runs when the agent's own model is not a realtime one (`voice.mode=realtime`). */
  readonly defaultModel: string;
  /** Whether the model is a native audio model this provider serves (`voice.mode=auto` picks realtime then). */
  supportsModel(model: string): boolean;
  /** Opens a session; rejects when the provider cannot be reached or refuses it. */
  connect(config: RealtimeSessionConfig, onEvent: (event: RealtimeEvent) => void): Promise<RealtimeSession>;
}

export interface RealtimeFunction {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
}

export interface RealtimeSessionConfig {
  model: string;
  /** Absent: the provider's default voice. */
  voice?: string;
  instructions: string;
  tools: RealtimeFunction[];
  /** Input and output audio format (voice.realtime.audioFormat). */
  audioFormat: RealtimeAudioFormat;
  /** Earlier turns of the session, given to the model as conversation items. */
  history: Array<{ role: 'user' | 'assistant'; text: string }>;
  /** Server VAD: silence that ends an utterance (ms). */
  silenceDurationMs?: number;
}

export interface RealtimeUsage {
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
}

export type RealtimeResponseStatus = 'completed' | 'cancelled' | 'failed' | 'incomplete';

/** What the session reports, in the provider's order. Audio is in the session's format. */
export type RealtimeEvent =
  | { type: 'speech_started'; itemId: string }
  | { type: 'speech_stopped'; itemId: string }
  | { type: 'input_committed'; itemId: string }
  | { type: 'user_transcript'; itemId: string; transcript: string }
  | { type: 'user_transcript_failed'; itemId: string; message: string }
  | { type: 'response_started'; responseId: string }
  | { type: 'audio'; responseId: string; itemId: string; audio: Uint8Array }
  | { type: 'transcript_delta'; responseId: string; delta: string }
  | { type: 'function_call'; responseId: string; callId: string; name: string; arguments: string }
  | {
      type: 'response_done';
      responseId: string;
      status: RealtimeResponseStatus;
      usage: RealtimeUsage;
      error?: { code: string; message: string };
    }
  | { type: 'error'; code: string; message: string }
  | { type: 'closed'; code: number; reason: string };

export interface RealtimeSession {
  /** Caller audio in the session's format (any length). */
  appendAudio(audio: Uint8Array): void;
  /** The output of a function the model called. */
  sendFunctionOutput(callId: string, output: string): void;
  /** Asks the model to respond (after function outputs). */
  createResponse(): void;
  /** Stops the response in progress (barge-in). */
  cancelResponse(responseId: string): void;
  /** The caller heard only the first `audioEndMs` of an assistant item's audio (barge-in). */
  truncate(itemId: string, audioEndMs: number): void;
  close(): void;
}
