import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw, FRAME_SAMPLES, rms } from '../pipeline/audio.js';
import {
  alawToLinear,
  createInboundConverter,
  createOutboundConverter,
  linearToAlaw,
  type RealtimeAudioFormat,
} from './realtimeAudio.js';

const FORMATS: RealtimeAudioFormat[] = ['pcm16', 'g711_ulaw', 'g711_alaw'];
const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));

describe('G.711 A-law', () => {
  it('re-encodes every decoded code to itself', () => {
    for (let code = 0; code < 256; code++) expect(linearToAlaw(alawToLinear(code))).toBe(code);
  });
  it('decodes within one quantisation step of any sample', () => {
    fc.assert(
      fc.property(fc.integer({ min: -32768, max: 32767 }), (sample) => {
        const back = alawToLinear(linearToAlaw(sample));
        expect(Math.abs(back - sample)).toBeLessThanOrEqual(Math.max(16, Math.abs(sample) / 16) + 8);
      }),
    );
  });
});

describe('realtime audio conversion', () => {
  it('converts caller audio the same whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.uint8Array({ minLength: 1, maxLength: 800 }),
        fc.nat(),
        (format, mulaw, at) => {
          const cut = at % mulaw.length;
          const whole = createInboundConverter(format)(mulaw);
          const split = createInboundConverter(format);
          expect(concat([split(mulaw.subarray(0, cut)), split(mulaw.subarray(cut))])).toEqual(
            Buffer.from(whole),
          );
          expect(whole.length).toBe(format === 'pcm16' ? mulaw.length * 6 : mulaw.length);
        },
      ),
    );
  });

  it('cuts model audio into the same 20 ms µ-law frames whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.uint8Array({ minLength: 0, maxLength: 4000 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (format, audio, cuts) => {
          const one = createOutboundConverter(format);
          const whole = [...one.push(audio), ...one.flush()];
          const many = createOutboundConverter(format);
          const points = [...new Set(cuts.map((c) => (audio.length === 0 ? 0 : c % audio.length)))].sort(
            (a, b) => a - b,
          );
          const frames: Uint8Array[] = [];
          let from = 0;
          for (const p of [...points, audio.length]) {
            frames.push(...many.push(audio.subarray(from, p)));
            from = p;
          }
          frames.push(...many.flush());
          expect(frames).toEqual(whole);
          for (const f of whole) expect(f).toHaveLength(FRAME_SAMPLES);
          const samples = format === 'pcm16' ? Math.floor(audio.length / 6) : audio.length;
          expect(whole).toHaveLength(Math.ceil(samples / FRAME_SAMPLES));
        },
      ),
    );
  });

  it('keeps a tone through µ-law 8 kHz → pcm16 24 kHz → µ-law 8 kHz', () => {
    const tone = encodeMulaw(
      Int16Array.from({ length: 1600 }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 8000)),
      ),
    );
    const pcm = createInboundConverter('pcm16')(tone);
    const out = createOutboundConverter('pcm16');
    const back = decodeMulaw(concat([...out.push(pcm), ...out.flush()]));
    const original = decodeMulaw(tone);
    expect(back).toHaveLength(original.length);
    expect(rms(back)).toBeGreaterThan(rms(original) * 0.9);
    expect(rms(back)).toBeLessThan(rms(original) * 1.1);
  });
});
