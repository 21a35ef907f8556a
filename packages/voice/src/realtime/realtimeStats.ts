import { decodeMulaw, FRAME_MS, FRAME_SAMPLES, rms } from '../pipeline/audio.js';
import type { VoiceCallMetrics } from '../pipeline/pipelineCall.js';

/** Energy below which an inbound frame counts as silence (as the pipeline's endpointer). */
const SILENCE_RMS = 500;

/** The voice analytics of a realtime call (the pipeline's VoiceCallMetrics), as it goes. */
export class RealtimeCallStats {
  utterances = 0;
  bargeIns = 0;
  emptyTranscripts = 0;
  failed = 0;
  private silenceFrames = 0;
  /** Per answered utterance: the model's end of speech → its first audio, ms. */
  private readonly responseTimes: number[] = [];

  /** Counts the silent 20 ms frames of caller audio. */
  heard(mulaw: Uint8Array): void {
    for (let i = 0; i + FRAME_SAMPLES <= mulaw.length; i += FRAME_SAMPLES)
      if (rms(decodeMulaw(mulaw.subarray(i, i + FRAME_SAMPLES))) < SILENCE_RMS) this.silenceFrames += 1;
  }

  responded(ms: number): void {
    this.responseTimes.push(Math.max(0, ms));
  }

  metrics(input: { callDurationMs: number; turnCount: number; replies: number }): VoiceCallMetrics {
    const times = this.responseTimes;
    return {
      callDurationMs: Math.max(0, input.callDurationMs),
      firstResponseTimeMs: times[0] ?? null,
      turnCount: input.turnCount,
      // The model transcribes; no confidence comes with it.
      sttConfidence: null,
      bargeInCount: this.bargeIns,
      bargeInRate: input.replies === 0 ? 0 : this.bargeIns / input.replies,
      silenceDurationMs: this.silenceFrames * FRAME_MS,
      utteranceCount: this.utterances,
      emptyTranscripts: this.emptyTranscripts,
      failedTurns: this.failed,
      meanResponseTimeMs: times.length === 0 ? null : times.reduce((a, b) => a + b, 0) / times.length,
    };
  }
}
