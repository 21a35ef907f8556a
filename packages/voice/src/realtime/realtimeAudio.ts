import {
  decodeMulaw,
  FRAME_SAMPLES,
  linearToMulaw,
  MULAW_SILENCE,
  mulawToLinear,
} from '../pipeline/audio.js';

/**
 * Audio between the telephony media stream (8 kHz G.711 µ-law, 20 ms frames) and a realtime
 * model's session format (voice.realtime.audioFormat): `g711_ulaw` passes through, `g711_alaw` is
 * transcoded sample by sample, `pcm16` is 24 kHz little-endian PCM16 (the only PCM rate the
 * OpenAI Realtime API takes), resampled by 3 both ways. The converters keep state across chunks so
 * a stream cut anywhere converts as if whole.
 */
export type RealtimeAudioFormat = 'pcm16' | 'g711_ulaw' | 'g711_alaw';

export const PCM16_SAMPLE_RATE = 24_000;
/** 24 kHz / 8 kHz. */
const RATIO = 3;

const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

/** G.711 A-law encoding of one PCM16 sample. */
export function linearToAlaw(sample: number): number {
  let value = Math.max(-32768, Math.min(32767, Math.round(sample))) >> 3;
  let mask = 0xd5;
  if (value < 0) {
    mask = 0x55;
    value = -value - 1;
  }
  let segment = 0;
  while (segment < 8 && value > (ALAW_SEGMENT_ENDS[segment] as number)) segment += 1;
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (value >> 1) & 0x0f : (value >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

/** G.711 A-law decoding of one byte to PCM16. */
export function alawToLinear(byte: number): number {
  const a = byte ^ 0x55;
  let t = (a & 0x0f) << 4;
  const segment = (a & 0x70) >> 4;
  if (segment === 0) t += 8;
  else if (segment === 1) t += 0x108;
  else t = (t + 0x108) << (segment - 1);
  return a & 0x80 ? t : -t;
}

/** Bytes of `format` that last `ms` milliseconds. */
export function bytesPerMs(format: RealtimeAudioFormat): number {
  return format === 'pcm16' ? (PCM16_SAMPLE_RATE * 2) / 1000 : 8;
}

/** Caller audio (µ-law 8 kHz) → the session's input format. */
export function createInboundConverter(format: RealtimeAudioFormat): (mulaw: Uint8Array) => Uint8Array {
  switch (format) {
    case 'g711_ulaw':
      return (mulaw) => mulaw;
    case 'g711_alaw':
      return (mulaw) => {
        const out = new Uint8Array(mulaw.length);
        for (let i = 0; i < mulaw.length; i++) out[i] = linearToAlaw(mulawToLinear(mulaw[i] as number));
        return out;
      };
    case 'pcm16': {
      // Linear interpolation from the previous sample: each input sample yields 3, one sample late.
      let previous = 0;
      return (mulaw) => {
        const samples = decodeMulaw(mulaw);
        const out = Buffer.alloc(samples.length * RATIO * 2);
        for (let i = 0; i < samples.length; i++) {
          const current = samples[i] as number;
          for (let k = 1; k <= RATIO; k++) {
            const value = Math.round(previous + ((current - previous) * k) / RATIO);
            out.writeInt16LE(value, (i * RATIO + k - 1) * 2);
          }
          previous = current;
        }
        return out;
      };
    }
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown realtime audio format ${String(exhaustive)}`);
    }
  }
}

/**
 * Model audio (the session's output format) → 20 ms µ-law frames for the media stream. `push`
 * answers the whole frames the audio completes; `flush` the rest, padded with silence.
 */
export interface OutboundConverter {
  push(audio: Uint8Array): Uint8Array[];
  flush(): Uint8Array[];
}

export function createOutboundConverter(format: RealtimeAudioFormat): OutboundConverter {
  let pending = new Uint8Array(0);
  const frames = (final: boolean): Uint8Array[] => {
    const out: Uint8Array[] = [];
    let i = 0;
    for (; i + FRAME_SAMPLES <= pending.length; i += FRAME_SAMPLES)
      out.push(pending.slice(i, i + FRAME_SAMPLES));
    pending = pending.slice(i);
    if (final && pending.length > 0) {
      const last = new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE);
      last.set(pending);
      out.push(last);
      pending = new Uint8Array(0);
    }
    return out;
  };
  const toMulaw = createMulawOf(format);
  return {
    push(audio) {
      const mulaw = toMulaw(audio);
      const joined = new Uint8Array(pending.length + mulaw.length);
      joined.set(pending);
      joined.set(mulaw, pending.length);
      pending = joined;
      return frames(false);
    },
    flush: () => frames(true),
  };
}

/** The session's output format → µ-law 8 kHz bytes (stateful across chunks for pcm16). */
function createMulawOf(format: RealtimeAudioFormat): (audio: Uint8Array) => Uint8Array {
  switch (format) {
    case 'g711_ulaw':
      return (audio) => audio;
    case 'g711_alaw':
      return (audio) => {
        const out = new Uint8Array(audio.length);
        for (let i = 0; i < audio.length; i++) out[i] = linearToMulaw(alawToLinear(audio[i] as number));
        return out;
      };
    case 'pcm16': {
      // A box filter over each 3 samples (24 kHz → 8 kHz); an odd byte or a partial group waits.
      let carry = new Uint8Array(0);
      return (audio) => {
        const bytes = new Uint8Array(carry.length + audio.length);
        bytes.set(carry);
        bytes.set(audio, carry.length);
        const group = RATIO * 2;
        const count = Math.floor(bytes.length / group);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const out = new Uint8Array(count);
        for (let i = 0; i < count; i++) {
          let sum = 0;
          for (let k = 0; k < RATIO; k++) sum += view.getInt16((i * RATIO + k) * 2, true);
          out[i] = linearToMulaw(sum / RATIO);
        }
        carry = bytes.slice(count * group);
        return out;
      };
    }
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown realtime audio format ${String(exhaustive)}`);
    }
  }
}
