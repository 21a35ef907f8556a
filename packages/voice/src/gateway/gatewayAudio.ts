import { decodeMulaw, encodeMulaw, resample, TELEPHONY_SAMPLE_RATE } from '../pipeline/audio.js';
import type { GatewayFormat } from './framing.js';

/**
 * Converts the gateway's audio to what the pipeline takes (8 kHz µ-law) and back. PCM16 is
 * little-endian; an odd byte at the end of a binary frame is kept for the next one.
 */
export interface GatewayAudio {
  /** A binary frame from the gateway → 8 kHz µ-law bytes for PipelineCall.pushAudio. */
  inbound(frame: Uint8Array): Uint8Array;
  /** One 20 ms frame of 8 kHz µ-law from the pipeline → the bytes of one binary frame to the gateway. */
  outbound(mulaw: Uint8Array): Uint8Array;
}

export function pcm16ToSamples(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(bytes.length >> 1);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i += 1) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

export function samplesToPcm16(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i += 1) view.setInt16(i * 2, samples[i] ?? 0, true);
  return bytes;
}

export function gatewayAudio(format: GatewayFormat): GatewayAudio {
  if (format.encoding === 'mulaw') return { inbound: (frame) => frame, outbound: (mulaw) => mulaw };
  const rate = format.sampleRate;
  let carry: number | null = null;
  return {
    inbound(frame) {
      let bytes = frame;
      if (carry !== null) {
        bytes = new Uint8Array(frame.length + 1);
        bytes[0] = carry;
        bytes.set(frame, 1);
        carry = null;
      }
      if (bytes.length % 2 === 1) {
        carry = bytes[bytes.length - 1] ?? 0;
        bytes = bytes.subarray(0, bytes.length - 1);
      }
      return encodeMulaw(resample(pcm16ToSamples(bytes), rate, TELEPHONY_SAMPLE_RATE));
    },
    outbound(mulaw) {
      return samplesToPcm16(resample(decodeMulaw(mulaw), TELEPHONY_SAMPLE_RATE, rate));
    },
  };
}
