import { sessionStream } from '@parley/events';
import { EventIdConflictError, type EventStore } from '@parley/eventstore';
import type { Runtime } from '@parley/runtime';
import {
  type CallOutput,
  createPipelineCall,
  type EndpointingOptions,
  type PipelineCall,
  type SpeechToText,
  type TextToSpeech,
  type VoiceAgent,
  type VoiceSettings,
  voiceMetricsTraceEvent,
} from '@parley/voice';
import type { FastifyBaseLogger } from 'fastify';

/** What a pipeline call needs from the app, whichever socket carries its audio. */
export interface VoiceCallDeps {
  store: EventStore;
  runtime: Pick<Runtime, 'runTurn'>;
  settings: VoiceSettings;
  stt: SpeechToText;
  tts: TextToSpeech;
  endpointing?: EndpointingOptions | undefined;
}

/** One call: who it belongs to and how its turns are recorded. */
export interface VoiceCallIdentity {
  callId: string;
  streamId: string;
  tenantId: string;
  projectId: string;
  /** The session the call named, not yet checked (its turns continue it when it is the project's). */
  claimed: string | undefined;
  /** The agent new sessions start with (a connection's binding); absent: the project's default. */
  agentName?: string | undefined;
  /** TurnRequest.channel / channelType of the call's session. */
  channel: string;
  channelType: string;
  channelMetadata: Record<string, unknown>;
}

/** The named session, when its stream exists and is the project's (its first event says so). */
export async function sessionOfProject(store: EventStore, projectId: string, sessionId: string | undefined) {
  if (sessionId === undefined) return null;
  for await (const first of store.readStream(sessionStream(sessionId), { maxCount: 1 }))
    return first.data.projectId === projectId ? sessionId : null;
  return null;
}

/**
 * The agent side of a pipeline call: each utterance is one runTurn of the call's session, streamed
 * so the pipeline speaks the reply sentence by sentence. A claimed session that is unknown, another
 * project's or ended: the call starts its own.
 */
export function voiceTurnAgent(
  runtime: VoiceCallDeps['runtime'],
  who: Omit<VoiceCallIdentity, 'callId' | 'streamId'>,
): VoiceAgent {
  let sessionId = who.claimed;
  return {
    async reply(text: string, onDelta?: (delta: string) => void) {
      // Streamed: the pipeline speaks the reply sentence by sentence as it comes.
      const turn = (id: string | undefined) =>
        runtime.runTurn(
          {
            projectId: who.projectId,
            tenantId: who.tenantId,
            ...(id === undefined ? {} : { sessionId: id }),
            ...(who.agentName === undefined ? {} : { agentName: who.agentName }),
            message: text,
            channel: who.channel,
            channelType: who.channelType,
            channelMetadata: who.channelMetadata,
            stream: onDelta !== undefined,
          },
          { onEvent: (event) => (event.type === 'text_delta' ? onDelta?.(event.delta) : undefined) },
        );
      let result: Awaited<ReturnType<typeof turn>>;
      try {
        result = await turn(sessionId);
      } catch (err) {
        // A claimed session that is unknown, another project's or ended: the call starts its own.
        const code = (err as { code?: string }).code;
        if (sessionId === undefined || (code !== 'SESSION_NOT_FOUND' && code !== 'SESSION_ENDED')) throw err;
        result = await turn(undefined);
      }
      sessionId = result.sessionId;
      return { text: result.reply.text, sessionId: result.sessionId };
    },
  };
}

/**
 * A call in `pipeline` mode over any audio socket (the provider's media stream, the voice gateway):
 * each utterance is one runTurn, the reply spoken back through `output`. `finish` stops the call
 * and appends its voice metrics to its session (once: the event id derives from the call id).
 */
export function startVoiceCall(
  deps: VoiceCallDeps,
  who: VoiceCallIdentity,
  output: CallOutput,
  log: FastifyBaseLogger,
): { call: PipelineCall; finish(): Promise<void> } {
  const startedAt = new Date();
  const agent = voiceTurnAgent(deps.runtime, who);
  const call = createPipelineCall({
    stt: deps.stt,
    tts: deps.tts,
    agent,
    latencyTargetMs: deps.settings.latencyTargetMs,
    output,
    ...(deps.endpointing === undefined ? {} : { endpointing: deps.endpointing }),
    onError: (err) => log.warn({ err, callId: who.callId }, 'voice turn failed'),
  });
  let finished: Promise<void> | null = null;
  const finish = () => {
    finished ??= (async () => {
      const metrics = await call.stop();
      // The session of the call's turns; without turns, the session the call named (if it is the project's).
      const recordedIn = call.sessionId ?? (await sessionOfProject(deps.store, who.projectId, who.claimed));
      if (recordedIn === null) {
        log.info({ callId: who.callId, metrics }, 'voice call without a session: metrics not recorded');
        return;
      }
      const event = voiceMetricsTraceEvent({
        sessionId: recordedIn,
        projectId: who.projectId,
        tenantId: who.tenantId,
        callSid: who.callId,
        streamSid: who.streamId,
        mode: 'pipeline',
        stt: deps.stt.name,
        tts: deps.tts.name,
        startedAt,
        metrics,
        latencyTargetMs: deps.settings.latencyTargetMs,
      });
      try {
        await deps.store.append(sessionStream(recordedIn), [event]);
      } catch (err) {
        if (!(err instanceof EventIdConflictError)) throw err;
      }
    })();
    return finished;
  };
  return { call, finish };
}
