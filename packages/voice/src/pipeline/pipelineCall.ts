import { decodeMulaw, FRAME_MS, rms, TELEPHONY_SAMPLE_RATE, toTelephonyFrames } from './audio.js';
import { Endpointer, type EndpointingOptions } from './endpointer.js';
import type { SpeechToText, TextToSpeech } from './engines.js';

/** Port: the agent answering one transcribed utterance (the runtime's runTurn in the gateway). */
export interface VoiceAgent {
  /**
   * The reply to the utterance. An agent that streams calls onDelta with the reply's text as it
   * comes: the pipeline speaks it sentence by sentence instead of waiting for the whole reply.
   */
  reply(text: string, onDelta?: (delta: string) => void): Promise<{ text: string; sessionId: string }>;
}

/** A complete sentence at the start of the text (ends with . ! ? or a newline, then space). */
const SENTENCE = /^([\s\S]*?(?:[.!?]+|\n))(\s+)/;

/** What the pipeline sends back on the call's media stream. */
export interface CallOutput {
  /** One 20 ms frame of 8 kHz µ-law. */
  media(frame: Uint8Array): void;
  /** A named mark after the frames of a reply; the provider echoes it once they have played. */
  mark(name: string): void;
  /** Drop the frames not played yet (barge-in). */
  clear(): void;
}

/** The voice analytics of spec 001 "Voice configuration", measured on one call. */
export interface VoiceCallMetrics {
  callDurationMs: number;
  /** From the end of the caller's first utterance to the first frame of the first reply; null without reply. */
  firstResponseTimeMs: number | null;
  /** Caller utterances answered with a spoken reply. */
  turnCount: number;
  /** Mean speech-to-text confidence over the transcribed utterances; null when the engine gave none. */
  sttConfidence: number | null;
  /** Replies interrupted by the caller speaking over them. */
  bargeInCount: number;
  /** bargeInCount / replies spoken (0 without replies). */
  bargeInRate: number;
  /** Inbound audio below the speech threshold, ms (the caller silent). */
  silenceDurationMs: number;
  /** Utterances heard, transcribed to nothing, or failed. */
  utteranceCount: number;
  emptyTranscripts: number;
  failedTurns: number;
  /** Mean of (end of utterance → first reply frame) over answered turns. */
  meanResponseTimeMs: number | null;
}

export interface PipelineCallOptions {
  stt: SpeechToText;
  tts: TextToSpeech;
  agent: VoiceAgent;
  output: CallOutput;
  endpointing?: EndpointingOptions;
  now?: () => number;
  /** A turn failed (STT, agent or TTS); the call goes on. */
  onError?: (err: unknown) => void;
  /** Each completed turn (transcript, reply), for logs and tests. */
  onTurn?: (turn: {
    transcript: string;
    confidence: number | null;
    reply: string;
    sessionId: string;
  }) => void;
}

export interface PipelineCall {
  /** A `media` payload from the provider: 8 kHz µ-law bytes (any number of 20 ms frames). */
  pushAudio(mulaw: Uint8Array): void;
  /** The provider played the frames up to this mark. */
  markPlayed(name: string): void;
  /** The call ended: waits for the turn in progress, returns the metrics. */
  stop(): Promise<VoiceCallMetrics>;
  readonly sessionId: string | null;
}

/**
 * One call in `pipeline` mode: energy endpointing cuts the caller's utterances, each goes through
 * speech-to-text, the agent and text-to-speech in order, and the reply goes back as µ-law frames
 * followed by a mark. Caller speech while a reply is playing (sent, its mark not echoed yet) is a
 * barge-in: the provider's buffer is cleared and the new utterance is taken.
 */
export function createPipelineCall(options: PipelineCallOptions): PipelineCall {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const endpointer = new Endpointer(options.endpointing);
  let queue: Promise<void> = Promise.resolve();
  let pending = new Uint8Array(0);
  /** The reply whose frames were sent and whose mark has not come back: it is playing. */
  let playing: number | null = null;
  /** The reply the caller interrupted: what is left of it is not spoken. */
  let interruptedReply: number | null = null;
  let replies = 0;
  let sessionId: string | null = null;
  let stopped = false;
  const confidences: number[] = [];
  const responseTimes: number[] = [];
  const metrics = {
    turnCount: 0,
    bargeInCount: 0,
    silenceFrames: 0,
    utteranceCount: 0,
    emptyTranscripts: 0,
    failedTurns: 0,
  };

  async function answer(frames: Int16Array[], endedAt: number): Promise<void> {
    const length = frames.reduce((n, f) => n + f.length, 0);
    const samples = new Int16Array(length);
    let offset = 0;
    for (const f of frames) {
      samples.set(f, offset);
      offset += f.length;
    }
    try {
      const heard = await options.stt.transcribe({ sampleRate: TELEPHONY_SAMPLE_RATE, samples });
      if (heard.confidence !== null) confidences.push(heard.confidence);
      const text = heard.text.trim();
      if (text === '') {
        metrics.emptyTranscripts += 1;
        return;
      }
      // Spoken sentence by sentence, in order, as the agent streams its reply (when it does).
      let replyNumber = 0;
      let speaking: Promise<void> = Promise.resolve();
      const cut = () => stopped || (replyNumber !== 0 && interruptedReply === replyNumber);
      const speak = (sentence: string) => {
        const line = sentence.trim();
        if (line === '') return;
        speaking = speaking.then(async () => {
          if (cut()) return;
          const wav = await options.tts.synthesize(line);
          if (cut()) return;
          if (replyNumber === 0) {
            replies += 1;
            replyNumber = replies;
            responseTimes.push(Math.max(0, now() - endedAt));
          }
          playing = replyNumber;
          for (const frame of toTelephonyFrames(wav)) options.output.media(frame);
        });
        // Handled here so a failure is not "unhandled" while the agent still runs; `await speaking` rethrows it.
        speaking.catch(() => undefined);
      };
      let pendingText = '';
      let streamed = false;
      const reply = await options.agent.reply(text, (delta) => {
        streamed = true;
        pendingText += delta;
        for (let m = SENTENCE.exec(pendingText); m !== null; m = SENTENCE.exec(pendingText)) {
          speak(m[1] as string);
          pendingText = pendingText.slice(m[0].length);
        }
      });
      sessionId = reply.sessionId;
      metrics.turnCount += 1;
      speak(streamed ? pendingText : reply.text);
      await speaking;
      if (replyNumber !== 0 && !cut()) options.output.mark(`reply-${replyNumber}`);
      options.onTurn?.({
        transcript: text,
        confidence: heard.confidence,
        reply: reply.text,
        sessionId: reply.sessionId,
      });
    } catch (err) {
      metrics.failedTurns += 1;
      options.onError?.(err);
    }
  }

  function pushFrame(frame: Int16Array): void {
    const energy = rms(frame);
    if (energy < endpointer.threshold) metrics.silenceFrames += 1;
    const event = endpointer.push(frame, energy);
    if (event?.type === 'speech_start' && playing !== null) {
      metrics.bargeInCount += 1;
      interruptedReply = playing;
      playing = null;
      options.output.clear();
    } else if (event?.type === 'utterance') {
      metrics.utteranceCount += 1;
      const endedAt = now();
      queue = queue.then(() => answer(event.frames, endedAt));
    }
  }

  return {
    pushAudio(mulaw) {
      if (stopped) return;
      const bytes = new Uint8Array(pending.length + mulaw.length);
      bytes.set(pending);
      bytes.set(mulaw, pending.length);
      const samples = (TELEPHONY_SAMPLE_RATE * FRAME_MS) / 1000;
      let i = 0;
      for (; i + samples <= bytes.length; i += samples)
        pushFrame(decodeMulaw(bytes.subarray(i, i + samples)));
      pending = bytes.slice(i);
    },
    markPlayed(name) {
      if (playing !== null && name === `reply-${playing}`) playing = null;
    },
    async stop() {
      // The turn in progress is still recorded; its reply is no longer spoken.
      stopped = true;
      await queue;
      const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
      return {
        callDurationMs: Math.max(0, now() - startedAt),
        firstResponseTimeMs: responseTimes[0] ?? null,
        turnCount: metrics.turnCount,
        sttConfidence: mean(confidences),
        bargeInCount: metrics.bargeInCount,
        bargeInRate: replies === 0 ? 0 : metrics.bargeInCount / replies,
        silenceDurationMs: metrics.silenceFrames * FRAME_MS,
        utteranceCount: metrics.utteranceCount,
        emptyTranscripts: metrics.emptyTranscripts,
        failedTurns: metrics.failedTurns,
        meanResponseTimeMs: mean(responseTimes),
      };
    },
    get sessionId() {
      return sessionId;
    },
  };
}
