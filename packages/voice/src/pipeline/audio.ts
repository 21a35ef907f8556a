/**
 * Audio helpers of the voice pipeline: G.711 µ-law (the telephony media stream's 8 kHz payload),
 * linear resampling, RIFF/WAV PCM16 mono read and write, frame energy. Samples are Int16Array.
 */

/** Telephony media: 8 kHz mono µ-law, 20 ms frames of 160 bytes. */
export const TELEPHONY_SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
export const FRAME_SAMPLES = (TELEPHONY_SAMPLE_RATE * FRAME_MS) / 1000;
/** µ-law silence (the encoding of 0). */
export const MULAW_SILENCE = 0xff;

const BIAS = 0x84;
const CLIP = 32635;

/** G.711 µ-law encoding of one PCM16 sample. */
export function linearToMulaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** G.711 µ-law decoding of one byte to PCM16. */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return sign ? -magnitude : magnitude;
}

export function encodeMulaw(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = linearToMulaw(samples[i] as number);
  return out;
}

export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = mulawToLinear(bytes[i] as number);
  return out;
}

/**
 * Linear-interpolation resampling. Downsampling first averages over the ratio (a box filter) so
 * that speech above the new Nyquist frequency folds in less.
 */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate || samples.length === 0) return samples.slice();
  let source = samples;
  if (toRate < fromRate) {
    const width = Math.max(1, Math.round(fromRate / toRate));
    if (width > 1) {
      const smoothed = new Int16Array(samples.length);
      let sum = 0;
      for (let i = 0; i < samples.length; i++) {
        sum += samples[i] as number;
        if (i >= width) sum -= samples[i - width] as number;
        smoothed[i] = Math.round(sum / Math.min(i + 1, width));
      }
      source = smoothed;
    }
  }
  const length = Math.max(1, Math.round((samples.length * toRate) / fromRate));
  const out = new Int16Array(length);
  const step = fromRate / toRate;
  for (let i = 0; i < length; i++) {
    const pos = i * step;
    const left = Math.floor(pos);
    const right = Math.min(left + 1, source.length - 1);
    const frac = pos - left;
    const a = source[Math.min(left, source.length - 1)] as number;
    const b = source[right] as number;
    out[i] = Math.round(a + (b - a) * frac);
  }
  return out;
}

/** Root mean square of the samples (0 for none). */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

export interface Wav {
  sampleRate: number;
  samples: Int16Array;
}

/**
 * A PCM16 WAV (mono, or the first channel). Tolerates the streaming sizes espeak-ng writes to a
 * pipe (0x7ffff… in the RIFF and data sizes): the data runs to the end of the buffer then.
 */
export function parseWav(buffer: Buffer): Wav {
  if (
    buffer.length < 12 ||
    buffer.toString('ascii', 0, 4) !== 'RIFF' ||
    buffer.toString('ascii', 8, 12) !== 'WAVE'
  )
    throw new Error('not a RIFF/WAVE file');
  let offset = 12;
  let sampleRate = 0;
  let channels = 1;
  let bits = 16;
  while (offset + 8 <= buffer.length) {
    const id = buffer.toString('ascii', offset, offset + 4);
    const size = buffer.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      const format = buffer.readUInt16LE(body);
      channels = buffer.readUInt16LE(body + 2);
      sampleRate = buffer.readUInt32LE(body + 4);
      bits = buffer.readUInt16LE(body + 14);
      if (format !== 1 || bits !== 16) throw new Error(`unsupported WAV format ${format}/${bits} bits`);
    } else if (id === 'data') {
      if (sampleRate === 0) throw new Error('WAV data before fmt');
      const end = Math.min(buffer.length, body + size);
      const frameBytes = 2 * channels;
      const count = Math.floor((end - body) / frameBytes);
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i++) samples[i] = buffer.readInt16LE(body + i * frameBytes);
      return { sampleRate, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV without data');
}

/** A mono PCM16 WAV file. */
export function writeWav({ sampleRate, samples }: Wav): Buffer {
  const data = samples.length * 2;
  const out = Buffer.alloc(44 + data);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + data, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i] as number, 44 + i * 2);
  return out;
}

/** µ-law bytes cut into 20 ms frames (the last one padded with silence). */
export function mulawFrames(bytes: Uint8Array): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += FRAME_SAMPLES) {
    const frame = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);
    frame.set(bytes.subarray(i, Math.min(bytes.length, i + FRAME_SAMPLES)));
    frames.push(frame);
  }
  return frames;
}

/** Speech of any rate as 8 kHz µ-law 20 ms frames. */
export function toTelephonyFrames(wav: Wav): Uint8Array[] {
  return mulawFrames(encodeMulaw(resample(wav.samples, wav.sampleRate, TELEPHONY_SAMPLE_RATE)));
}
