import type { CallOutput, PipelineCall } from '../pipeline/pipelineCall.js';
import { RealtimeBridge } from './realtimeBridge.js';
import type { RealtimeSessionConfig, RealtimeVoiceProvider } from './realtimeProvider.js';
import type { RealtimeAgentConversation } from './realtimeTurns.js';
export type RealtimeCallEnd = 'max_session_duration' | 'conversation_ended' | 'provider_closed';

export interface RealtimeCallOptions {
  provider: RealtimeVoiceProvider;
  session: RealtimeSessionConfig;
  conversation: RealtimeAgentConversation;
  output: CallOutput;
  /** voice.realtime.maxSessionDurationMs: the call is ended when it is reached. */
  maxSessionDurationMs: number;
  /** The call must end (the media stream's owner closes it, then calls stop()). */
  onEnd(reason: RealtimeCallEnd): void;
  onError?: (err: unknown) => void;
  /** How long a turn waits for the caller's transcript after its answer (default 3 s). */
  transcriptWaitMs?: number;
  now?: () => number;
}

/**
 * One telephony call in `realtime` mode: caller audio converted and appended to the provider's
 * session; its audio deltas converted to µ-law frames on the media stream; function calls run by
 * the agent side and answered (function_call_output, response.create); caller speech during a
 * response is a barge-in (response.cancel, conversation.item.truncate and the provider's `clear`). Each utterance is a turn
 * recorded by the agent side once answered and transcribed. Same handle as a pipeline call.
 */
export async function startRealtimeCall(options: RealtimeCallOptions): Promise<PipelineCall> {
  const bridge = new RealtimeBridge(options);
  await bridge.connect();
  return {
    pushAudio: (mulaw) => bridge.pushAudio(mulaw),
    markPlayed: (name) => bridge.markPlayed(name),
    stop: () => bridge.stop(),
    get sessionId() {
      return bridge.sessionId;
    },
  };
}
