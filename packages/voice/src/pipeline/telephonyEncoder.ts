import { FRAME_SAMPLES, linearToMulaw, MULAW_SILENCE, TELEPHONY_SAMPLE_RATE } from './audio.js';

/**
 * Speech arriving in chunks of any sample rate as 8 kHz µ-law 20 ms frames, without seams
 * between chunks: the same box filter and linear interpolation as `resample`, with its state
 * (the last input samples, the fractional position) carried from one chunk to the next.
 */
export class TelephonyEncoder {
  private readonly step: number;
  private readonly width: number;
  /** The last width-1 raw samples (the box filter's window). */
  private window: number[] = [];
  /** Smoothed samples from absolute index `base` on. */
  private smoothed: number[] = [];
  private base = 0;
  /** Absolute input position of the next output sample. */
  private position = 0;
  private bytes: number[] = [];

  constructor(readonly sampleRate: number) {
    this.step = sampleRate / TELEPHONY_SAMPLE_RATE;
    this.width = sampleRate > TELEPHONY_SAMPLE_RATE ? Math.max(1, Math.round(this.step)) : 1;
  }

  /** The complete frames that the samples make (the rest waits for more or for end()). */
  push(samples: Int16Array): Uint8Array[] {
    for (const s of samples) {
      this.window.push(s);
      if (this.window.length > this.width) this.window.shift();
      let sum = 0;
      for (const w of this.window) sum += w;
      this.smoothed.push(sum / this.window.length);
    }
    this.interpolate(false);
    return this.frames(false);
  }

  /** The last samples and frame (padded with silence). */
  end(): Uint8Array[] {
    this.interpolate(true);
    return this.frames(true);
  }

  private interpolate(final: boolean): void {
    const end = this.base + this.smoothed.length;
    while (this.position < end - (final ? 0 : 1)) {
      const left = Math.floor(this.position);
      const frac = this.position - left;
      const a = this.smoothed[left - this.base] as number;
      const b = (this.smoothed[left + 1 - this.base] ?? a) as number;
      this.bytes.push(linearToMulaw(a + (b - a) * frac));
      this.position += this.step;
    }
    const drop = Math.min(this.smoothed.length, Math.max(0, Math.floor(this.position) - this.base));
    if (drop > 0) {
      this.smoothed = this.smoothed.slice(drop);
      this.base += drop;
    }
  }

  private frames(final: boolean): Uint8Array[] {
    const out: Uint8Array[] = [];
    let i = 0;
    for (; i + FRAME_SAMPLES <= this.bytes.length; i += FRAME_SAMPLES)
      out.push(Uint8Array.from(this.bytes.slice(i, i + FRAME_SAMPLES)));
    this.bytes = this.bytes.slice(i);
    if (final && this.bytes.length > 0) {
      const last = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);
      last.set(this.bytes);
      out.push(last);
      this.bytes = [];
    }
    return out;
  }
}
