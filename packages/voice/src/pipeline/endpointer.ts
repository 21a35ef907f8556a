import { FRAME_MS } from './audio.js';

export interface EndpointingOptions {
  /** RMS (PCM16) above which a frame is speech (the floor: background noise raises it). Default 500. */
  energyThreshold?: number;
  /**
   * Silence after speech that ends an utterance (the hangover), ms. Default: from
   * voice.latencyTargetMs (endSilenceMsFor), 300 without one.
   */
  endSilenceMs?: number;
  /** Speech shorter than this is noise, not an utterance, ms. Default 200. */
  minSpeechMs?: number;
  /** Consecutive speech that counts as the caller starting to speak (barge-in), ms. Default 100. */
  speechStartMs?: number;
  /** Longest utterance; cut here, ms. Default 30 000. */
  maxUtteranceMs?: number;
}

/**
 * The hangover for a latency target: half of it (the other half is left to recognition, the
 * agent and the first synthesized chunk), at least 240 ms (pauses between words) and at most
 * 800 ms.
 */
export function endSilenceMsFor(latencyTargetMs: number): number {
  return Math.round(Math.min(800, Math.max(240, latencyTargetMs / 2)));
}

export type EndpointerEvent =
  /** The caller started speaking: the lead-in frames (the frame pushed is the last one). */
  | { type: 'speech_start'; frames: Int16Array[] }
  /** The frame pushed belongs to the utterance in progress. */
  | { type: 'speech' }
  /** The utterance is complete: all its frames (lead-in to hangover, the frame pushed the last one). */
  | { type: 'utterance'; frames: Int16Array[]; speechMs: number }
  /** What started was shorter than minSpeechMs: noise, not an utterance. */
  | { type: 'discarded' }
  | null;

/** Lead-in kept before the speech start, frames (200 ms). */
const LEAD_IN_FRAMES = 10;
/** A frame within the utterance counts as speech above this share of the start threshold (hysteresis). */
const CONTINUE_RATIO = 0.6;
/** The start threshold is at least this many times the background noise. */
const NOISE_MARGIN = 3;

/**
 * Energy endpointing over 20 ms frames with hysteresis and a hangover: an utterance starts with
 * speechStartMs of frames above the start threshold (max of energyThreshold and 3× the background
 * noise, a slow average of the quiet frames), stays open while frames stay above 60 % of it, and
 * ends after endSilenceMs below that. The frames pushed while it is open are reported (`speech`)
 * so that a recognizer can be fed while the caller speaks.
 */
export class Endpointer {
  readonly threshold: number;
  readonly endSilenceMs: number;
  private readonly endSilenceFrames: number;
  private readonly minSpeechFrames: number;
  private readonly startFrames: number;
  private readonly maxFrames: number;
  private readonly leadIn: Int16Array[] = [];
  private frames: Int16Array[] = [];
  private inUtterance = false;
  private loudRun = 0;
  private quietRun = 0;
  private speechFrames = 0;
  private noise = 0;

  constructor(options: EndpointingOptions = {}) {
    this.threshold = options.energyThreshold ?? 500;
    this.endSilenceMs = options.endSilenceMs ?? 300;
    this.endSilenceFrames = Math.ceil(this.endSilenceMs / FRAME_MS);
    this.minSpeechFrames = Math.ceil((options.minSpeechMs ?? 200) / FRAME_MS);
    this.startFrames = Math.max(1, Math.ceil((options.speechStartMs ?? 100) / FRAME_MS));
    this.maxFrames = Math.ceil((options.maxUtteranceMs ?? 30_000) / FRAME_MS);
  }

  /** The energy a frame needs to start an utterance now. */
  get startThreshold(): number {
    return Math.max(this.threshold, NOISE_MARGIN * this.noise);
  }

  /** Feeds one frame and its energy; says when speech starts, continues and ends. */
  push(frame: Int16Array, energy: number): EndpointerEvent {
    const start = this.startThreshold;
    if (!this.inUtterance) {
      this.leadIn.push(frame);
      if (this.leadIn.length > LEAD_IN_FRAMES) this.leadIn.shift();
      this.loudRun = energy >= start ? this.loudRun + 1 : 0;
      if (this.loudRun === 0) this.noise = this.noise === 0 ? energy : 0.95 * this.noise + 0.05 * energy;
      if (this.loudRun < this.startFrames) return null;
      this.inUtterance = true;
      this.frames = [...this.leadIn];
      this.leadIn.length = 0;
      this.speechFrames = this.loudRun;
      this.quietRun = 0;
      return { type: 'speech_start', frames: [...this.frames] };
    }
    this.frames.push(frame);
    if (energy >= CONTINUE_RATIO * start) {
      this.speechFrames += 1;
      this.quietRun = 0;
    } else {
      this.quietRun += 1;
    }
    if (this.quietRun < this.endSilenceFrames && this.frames.length < this.maxFrames)
      return { type: 'speech' };
    const frames = this.frames;
    const speechFrames = this.speechFrames;
    this.reset();
    if (speechFrames < this.minSpeechFrames) return { type: 'discarded' };
    return { type: 'utterance', frames, speechMs: speechFrames * FRAME_MS };
  }

  /** True between speech_start and the end of that utterance. */
  get speaking(): boolean {
    return this.inUtterance;
  }

  reset(): void {
    this.inUtterance = false;
    this.frames = [];
    this.loudRun = 0;
    this.quietRun = 0;
    this.speechFrames = 0;
  }
}
