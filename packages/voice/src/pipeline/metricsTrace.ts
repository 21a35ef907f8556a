import { randomBytes } from 'node:crypto';
import { toAppend } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { derivedUuid } from '../ids.js';
import type { VoiceCallMetrics } from './pipelineCall.js';

/** The trace event's name: a `state_change` of the call to `ended`, carrying the call's metrics. */
export const VOICE_CALL_METRICS_TRACE = 'voice_call';

/**
 * The voice analytics of one call as a TraceEventRecorded of its session: eventType
 * `state_change` (the call went from `in-progress` to `ended`), name `voice_call`, durationMs =
 * call duration, attributes = every metric (camelCase, ms) and the call's ids.
 */
export function voiceMetricsTraceEvent(input: {
  sessionId: string;
  projectId: string;
  tenantId: string;
  callSid: string;
  streamSid: string;
  mode: 'pipeline' | 'realtime';
  /** Pipeline: the engines; realtime: the realtime provider (both). */
  stt: string;
  tts: string;
  /** Realtime mode: the model the session ran. */
  realtimeModel?: string;
  startedAt: Date;
  metrics: VoiceCallMetrics;
  /** voice.latencyTargetMs: the first response is compared with it. */
  latencyTargetMs: number;
}): EventToAppend {
  const m = input.metrics;
  return toAppend(
    'TraceEventRecorded',
    {
      sessionId: input.sessionId,
      projectId: input.projectId,
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      eventType: 'state_change',
      name: VOICE_CALL_METRICS_TRACE,
      status: 'ok',
      startedAt: input.startedAt.toISOString(),
      durationMs: m.callDurationMs,
      attributes: {
        from: 'in-progress',
        to: 'ended',
        callSid: input.callSid,
        streamSid: input.streamSid,
        mode: input.mode,
        sttEngine: input.stt,
        ttsEngine: input.tts,
        ...(input.realtimeModel === undefined ? {} : { realtimeModel: input.realtimeModel }),
        callDurationMs: m.callDurationMs,
        firstResponseTimeMs: m.firstResponseTimeMs,
        latencyTargetMs: input.latencyTargetMs,
        withinLatencyTarget:
          m.firstResponseTimeMs === null ? null : m.firstResponseTimeMs <= input.latencyTargetMs,
        meanResponseTimeMs: m.meanResponseTimeMs,
        turnCount: m.turnCount,
        sttConfidence: m.sttConfidence,
        bargeInCount: m.bargeInCount,
        bargeInRate: m.bargeInRate,
        silenceDurationMs: m.silenceDurationMs,
        utteranceCount: m.utteranceCount,
        emptyTranscripts: m.emptyTranscripts,
        failedTurns: m.failedTurns,
      },
    },
    { tenantId: input.tenantId, projectId: input.projectId },
    // Once per call: a repeated `stop` appends nothing.
    derivedUuid('voice-call-metrics', input.callSid),
  );
}
