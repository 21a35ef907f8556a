import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMulaw, FRAME_SAMPLES, toTelephonyFrames } from './audio.js';
import { TelephonyEncoder } from './telephonyEncoder.js';

const speechLike = (n: number, rate: number) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / rate)));

function encodeInChunks(samples: Int16Array, rate: number, cuts: number[]): Uint8Array[] {
  const encoder = new TelephonyEncoder(rate);
  const frames: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, samples.length]) {
    frames.push(...encoder.push(samples.subarray(from, cut)));
    from = cut;
  }
  frames.push(...encoder.end());
  return frames;
}

describe('TelephonyEncoder', () => {
  it('gives the same frames however the audio is cut into chunks (no seams)', () => {
    const samples = speechLike(5000, 22050);
    const whole = encodeInChunks(samples, 22050, []);
    fc.assert(
      fc.property(fc.array(fc.nat(5000), { maxLength: 10 }), (cuts) => {
        const sorted = [...new Set(cuts)].sort((a, b) => a - b);
        expect(encodeInChunks(samples, 22050, sorted)).toEqual(whole);
      }),
    );
  });

  it('matches the one-shot conversion of toTelephonyFrames (within a µ-law step), 20 ms frames', () => {
    for (const rate of [22050, 16000, 8000]) {
      const samples = speechLike(rate, rate); // one second
      const streamed = encodeInChunks(samples, rate, [1000, 1001, 7000]);
      const oneShot = toTelephonyFrames({ sampleRate: rate, samples });
      expect(Math.abs(streamed.length - oneShot.length)).toBeLessThanOrEqual(1);
      for (const f of streamed) expect(f).toHaveLength(FRAME_SAMPLES);
      const a = decodeMulaw(Buffer.concat(streamed.slice(0, oneShot.length - 1)));
      const b = decodeMulaw(Buffer.concat(oneShot.slice(0, oneShot.length - 1)));
      let worst = 0;
      for (let i = 0; i < a.length; i++)
        worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
      expect(worst).toBeLessThanOrEqual(400); // one µ-law step at 6000 is 256
    }
  });
});
