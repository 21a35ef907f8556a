import { FRAME_MS } from './audio.js';

export interface EndpointingOptions {
  /** RMS (PCM16) above which a frame is speech. Default 500. */
  energyThreshold?: number;
  /** Silence after speech that ends an utterance, ms. Default 700. */
  endSilenceMs?: number;
  /** Speech shorter than this is noise, not an utterance, ms. Default 200. */
  minSpeechMs?: number;
  /** Consecutive speech that counts as the caller starting to speak (barge-in), ms. Default 100. */
  speechStartMs?: number;
  /** Longest utterance; cut here, ms. Default 30 000. */
  maxUtteranceMs?: number;
}

export type EndpointerEvent =
  | { type: 'speech_start' }
  | { type: 'utterance'; frames: Int16Array[]; speechMs: number }
  | null;

/**
 * Energy endpointing over 20 ms frames: an utterance starts with speechStartMs of frames above the
 * threshold (kept, with 200 ms of lead-in) and ends after endSilenceMs of frames below it.
 */
export class Endpointer {
  readonly threshold: number;
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

  constructor(options: EndpointingOptions = {}) {
    this.threshold = options.energyThreshold ?? 500;
    this.endSilenceFrames = Math.ceil((options.endSilenceMs ?? 700) / FRAME_MS);
    this.minSpeechFrames = Math.ceil((options.minSpeechMs ?? 200) / FRAME_MS);
    this.startFrames = Math.max(1, Math.ceil((options.speechStartMs ?? 100) / FRAME_MS));
    this.maxFrames = Math.ceil((options.maxUtteranceMs ?? 30_000) / FRAME_MS);
  }

  /** Feeds one frame and its energy; says when speech starts and when an utterance is complete. */
  push(frame: Int16Array, energy: number): EndpointerEvent {
    const loud = energy >= this.threshold;
    if (!this.inUtterance) {
      this.leadIn.push(frame);
      if (this.leadIn.length > 10) this.leadIn.shift();
      this.loudRun = loud ? this.loudRun + 1 : 0;
      if (this.loudRun < this.startFrames) return null;
      this.inUtterance = true;
      this.frames = [...this.leadIn];
      this.leadIn.length = 0;
      this.speechFrames = this.loudRun;
      this.quietRun = 0;
      return { type: 'speech_start' };
    }
    this.frames.push(frame);
    if (loud) {
      this.speechFrames += 1;
      this.quietRun = 0;
    } else {
      this.quietRun += 1;
    }
    if (this.quietRun < this.endSilenceFrames && this.frames.length < this.maxFrames) return null;
    const frames = this.frames;
    const speechFrames = this.speechFrames;
    this.reset();
    if (speechFrames < this.minSpeechFrames) return null;
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
