import type { RealtimeConversation, Runtime } from '@parley/runtime';
import {
  type CallOutput,
  chooseVoiceMode,
  type PipelineCall,
  type RealtimeCallEnd,
  type RealtimeVoiceProvider,
  realtimeProviderOf,
  startRealtimeCall,
  type VoiceSettings,
} from '@parley/voice';
import type { FastifyBaseLogger } from 'fastify';

/** The session channel and transport of a call answered by a realtime model. */
export const VOICE_REALTIME_CHANNEL = 'voice_realtime';

export interface RealtimeStreamDeps {
  runtime: Pick<Runtime, 'openRealtime'>;
  settings: VoiceSettings;
  providers: readonly RealtimeVoiceProvider[];
  log: FastifyBaseLogger;
}

export interface RealtimeStreamInput {
  projectId: string;
  tenantId: string;
  callSid: string;
  streamSid: string;
  channelType: string;
  /** The session the call named (unchecked): an unknown or ended one gives way to a new session. */
  claimed: string | undefined;
  output: CallOutput;
  /** The call must end (the stream is closed with this reason). */
  onEnd(reason: RealtimeCallEnd): void;
}

export type RealtimeStreamChoice =
  | { mode: 'pipeline' }
  | { mode: 'unavailable'; reason: string }
  | { mode: 'realtime'; call: PipelineCall; provider: string; model: string };

/**
 * The mode dispatch of the media stream (voice.mode, chooseVoiceMode): `pipeline` leaves the call
 * to the pipeline; otherwise the agent's realtime conversation is opened (runtime.openRealtime) and
 * the realtime provider's session connected (startRealtimeCall). `auto` falls back to the pipeline
 * whenever realtime cannot answer; `realtime` is then unavailable (the stream closes 1011).
 */
export async function realtimeStreamFor(
  deps: RealtimeStreamDeps,
  input: RealtimeStreamInput,
): Promise<RealtimeStreamChoice> {
  const { settings } = deps;
  if (settings.mode === 'pipeline') return { mode: 'pipeline' };
  const provider = realtimeProviderOf(settings, deps.providers);
  const fallback = (reason: string): RealtimeStreamChoice =>
    settings.mode === 'auto' ? { mode: 'pipeline' } : { mode: 'unavailable', reason };
  if (provider === null) return fallback('realtime provider not configured');
  const conversation = await openConversation(deps, input);
  const choice = chooseVoiceMode(settings, provider, conversation?.agent.model ?? null);
  if (choice.mode !== 'realtime' || conversation === null) {
    return choice.mode === 'unavailable' ? choice : fallback('the agent cannot answer in realtime');
  }
  try {
    const call = await startRealtimeCall({
      provider,
      conversation,
      session: {
        model: choice.model,
        ...(settings.realtime.defaultVoice === undefined ? {} : { voice: settings.realtime.defaultVoice }),
        instructions: conversation.agent.instructions,
        tools: conversation.agent.tools,
        audioFormat: settings.realtime.audioFormat,
        history: conversation.agent.history.map((m) => ({
          role: m.role === 'user' ? ('user' as const) : ('assistant' as const),
          text: m.content,
        })),
      },
      output: input.output,
      maxSessionDurationMs: settings.realtime.maxSessionDurationMs,
      onEnd: input.onEnd,
      onError: (err) => deps.log.warn({ err, callSid: input.callSid }, 'realtime voice call error'),
    });
    return { mode: 'realtime', call, provider: provider.name, model: choice.model };
  } catch (err) {
    deps.log.warn({ err, callSid: input.callSid, provider: provider.name }, 'realtime provider not reached');
    return fallback('realtime provider not reachable');
  }
}

/** The call's conversation; null when no realtime model can answer it (a remote agent's session). */
async function openConversation(
  deps: RealtimeStreamDeps,
  input: RealtimeStreamInput,
): Promise<RealtimeConversation | null> {
  const open = (sessionId: string | undefined) =>
    deps.runtime.openRealtime({
      projectId: input.projectId,
      tenantId: input.tenantId,
      ...(sessionId === undefined ? {} : { sessionId }),
      channel: VOICE_REALTIME_CHANNEL,
      channelType: input.channelType,
      channelMetadata: { callSid: input.callSid, streamSid: input.streamSid },
    });
  try {
    return await open(input.claimed);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'REALTIME_UNAVAILABLE') return null;
    if (input.claimed === undefined || (code !== 'SESSION_NOT_FOUND' && code !== 'SESSION_ENDED')) throw err;
    return open(undefined);
  }
}
