import { decodeMulaw, FRAME_MS, rms, TELEPHONY_SAMPLE_RATE } from './audio.js';
import { Endpointer, type EndpointingOptions, endSilenceMsFor } from './endpointer.js';
import type { SpeechToText, TextToSpeech, Transcript } from './engines.js';
import { ReplyChunker } from './replyChunker.js';
import { speakChunk } from './speakChunk.js';
import type { CallRecognizer, UtteranceStream } from './streamingStt.js';

/** Port: the agent answering one transcribed utterance (the runtime's runTurn in the gateway). */
export interface VoiceAgent {
  /**
   * The reply to the utterance. An agent that streams calls onDelta with the reply's text as it
   * comes: the pipeline speaks it sentence by sentence instead of waiting for the whole reply.
   */
  reply(text: string, onDelta?: (delta: string) => void): Promise<{ text: string; sessionId: string }>;
}

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
  /** Explicit endpointing; its endSilenceMs wins over the one latencyTargetMs gives. */
  endpointing?: EndpointingOptions;
  /** voice.latencyTargetMs: steers the end-of-speech wait (endSilenceMsFor). */
  latencyTargetMs?: number;
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

function concat(frames: Int16Array[]): Int16Array {
  const samples = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
  let offset = 0;
  for (const f of frames) {
    samples.set(f, offset);
    offset += f.length;
  }
  return samples;
}

/**
 * One call in `pipeline` mode: energy endpointing cuts the caller's utterances. With a streaming
 * engine, each utterance is fed to the call's recognizer frame by frame while the caller speaks,
 * so its transcript is ready shortly after the end of speech; otherwise it is transcribed whole
 * once it ended. The agent's reply is spoken chunk by chunk as it streams (the first clause,
 * then sentences), each chunk's audio sent as µ-law frames as the engine produces it, then a mark.
 * Caller speech while a reply is playing (sent, its mark not echoed yet) is a barge-in: the
 * provider's buffer is cleared and the new utterance is taken.
 */
export function createPipelineCall(options: PipelineCallOptions): PipelineCall {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const endSilenceMs =
    options.endpointing?.endSilenceMs ??
    (options.latencyTargetMs === undefined ? undefined : endSilenceMsFor(options.latencyTargetMs));
  const endpointer = new Endpointer({
    ...options.endpointing,
    ...(endSilenceMs === undefined ? {} : { endSilenceMs }),
  });
  const recognizer: CallRecognizer | null = options.stt.openCallRecognizer?.() ?? null;
  let utterance: UtteranceStream | null = null;
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

  async function answer(transcript: Promise<Transcript>, endedAt: number): Promise<void> {
    try {
      const heard = await transcript;
      if (heard.confidence !== null) confidences.push(heard.confidence);
      const text = heard.text.trim();
      if (text === '') {
        metrics.emptyTranscripts += 1;
        return;
      }
      let replyNumber = 0;
      let speaking: Promise<void> = Promise.resolve();
      const cut = () => stopped || (replyNumber !== 0 && interruptedReply === replyNumber);
      const firstFrame = () => {
        if (replyNumber !== 0) return;
        replies += 1;
        replyNumber = replies;
        responseTimes.push(Math.max(0, now() - endedAt));
      };
      const speak = (chunks: string[]) => {
        for (const chunk of chunks) {
          speaking = speaking.then(() =>
            speakChunk(options.tts, chunk, {
              cut,
              media: (frame) => {
                firstFrame();
                playing = replyNumber;
                options.output.media(frame);
              },
            }),
          );
          // Handled here so a failure is not "unhandled" while the agent still runs; `await speaking` rethrows it.
          speaking.catch(() => undefined);
        }
      };
      const chunker = new ReplyChunker();
      let streamed = false;
      const reply = await options.agent.reply(text, (delta) => {
        streamed = true;
        speak(chunker.push(delta));
      });
      sessionId = reply.sessionId;
      metrics.turnCount += 1;
      speak(streamed ? chunker.end() : [...chunker.push(reply.text), ...chunker.end()]);
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

  /** The recognizer's stream of the utterance that starts (null: transcribed whole at its end). */
  function startRecognition(frames: Int16Array[]): void {
    if (recognizer === null) return;
    try {
      utterance = recognizer.startUtterance();
      for (const f of frames) utterance.write(f);
    } catch (err) {
      utterance = null;
      options.onError?.(err);
    }
  }

  function endOfSpeech(frames: Int16Array[]): void {
    metrics.utteranceCount += 1;
    const endedAt = now();
    const stream = utterance;
    utterance = null;
    const transcript =
      stream !== null
        ? stream.finish()
        : options.stt.transcribe({ sampleRate: TELEPHONY_SAMPLE_RATE, samples: concat(frames) });
    transcript.catch(() => undefined); // reported by answer()
    queue = queue.then(() => answer(transcript, endedAt));
  }

  function pushFrame(frame: Int16Array): void {
    const energy = rms(frame);
    if (energy < endpointer.startThreshold) metrics.silenceFrames += 1;
    const event = endpointer.push(frame, energy);
    if (event === null) return;
    switch (event.type) {
      case 'speech_start':
        if (playing !== null) {
          metrics.bargeInCount += 1;
          interruptedReply = playing;
          playing = null;
          options.output.clear();
        }
        startRecognition(event.frames);
        return;
      case 'speech':
        utterance?.write(frame);
        return;
      case 'utterance':
        utterance?.write(frame);
        endOfSpeech(event.frames);
        return;
      case 'discarded':
        utterance?.cancel();
        utterance = null;
        return;
      default:
        assertNever(event);
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
      utterance?.cancel();
      utterance = null;
      await queue;
      recognizer?.close();
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

function assertNever(value: never): never {
  throw new Error(`unexpected endpointer event ${JSON.stringify(value)}`);
}
