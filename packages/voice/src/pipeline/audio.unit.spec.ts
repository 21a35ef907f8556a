import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeMulaw,
  encodeMulaw,
  FRAME_SAMPLES,
  linearToMulaw,
  MULAW_SILENCE,
  mulawFrames,
  mulawToLinear,
  parseWav,
  resample,
  rms,
  toTelephonyFrames,
  writeWav,
} from './audio.js';

const pcm = fc.integer({ min: -32768, max: 32767 });

describe('G.711 µ-law', () => {
  it('encodes 0 as the silence byte 0xFF and decodes it back to 0', () => {
    expect(linearToMulaw(0)).toBe(MULAW_SILENCE);
    expect(mulawToLinear(MULAW_SILENCE)).toBe(0);
    // Reference points of the G.711 table.
    expect(linearToMulaw(32767)).toBe(0x80);
    expect(linearToMulaw(-32768)).toBe(0x00);
    expect(mulawToLinear(0x80)).toBe(32124);
    expect(mulawToLinear(0x00)).toBe(-32124);
  });

  it('round-trips every sample within half a quantisation step (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -32635, max: 32635 }), (x) => {
        const back = mulawToLinear(linearToMulaw(x));
        expect(Math.abs(back - x)).toBeLessThanOrEqual((Math.abs(x) + 132) / 32 + 1);
        expect(Math.sign(back) === Math.sign(x) || back === 0 || Math.abs(x) < 8).toBe(true);
      }),
    );
  });

  it('is monotonic: a louder sample never decodes quieter (property)', () => {
    fc.assert(
      fc.property(pcm, pcm, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(mulawToLinear(linearToMulaw(lo))).toBeLessThanOrEqual(mulawToLinear(linearToMulaw(hi)));
      }),
    );
  });

  it('decodes every byte to a value the encoder maps back to the same byte (except -0)', () => {
    for (let byte = 0; byte < 256; byte++) {
      if (byte === 0x7f) continue; // -0 encodes as +0 (0xFF)
      expect(linearToMulaw(mulawToLinear(byte))).toBe(byte);
    }
    const bytes = encodeMulaw(Int16Array.from([0, 1000, -1000]));
    expect(Array.from(decodeMulaw(bytes))).toEqual([0, 988, -988]);
  });
});

describe('resample', () => {
  it('keeps the duration: length × to / from, rounded (property)', () => {
    fc.assert(
      fc.property(
        fc.array(pcm, { minLength: 1, maxLength: 500 }),
        fc.constantFrom(8000, 16000, 22050, 44100),
        fc.constantFrom(8000, 16000, 22050),
        (samples, from, to) => {
          const out = resample(Int16Array.from(samples), from, to);
          expect(out.length).toBe(
            from === to ? samples.length : Math.max(1, Math.round((samples.length * to) / from)),
          );
          for (const s of out) {
            expect(s).toBeGreaterThanOrEqual(-32768);
            expect(s).toBeLessThanOrEqual(32767);
          }
        },
      ),
    );
  });

  it('keeps the level of a 440 Hz tone through 22.05 kHz → 8 kHz → 16 kHz', () => {
    const tone = Int16Array.from({ length: 22050 }, (_, i) =>
      Math.round(10000 * Math.sin((2 * Math.PI * 440 * i) / 22050)),
    );
    const down = resample(tone, 22050, 8000);
    const up = resample(down, 8000, 16000);
    expect(down.length).toBe(8000);
    expect(up.length).toBe(16000);
    expect(rms(up) / rms(tone)).toBeGreaterThan(0.85);
    expect(rms(up) / rms(tone)).toBeLessThan(1.05);
  });
});

describe('WAV', () => {
  it('parses what it writes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(pcm, { maxLength: 300 }),
        fc.constantFrom(8000, 16000, 22050),
        (samples, sampleRate) => {
          const wav = parseWav(writeWav({ sampleRate, samples: Int16Array.from(samples) }));
          expect(wav.sampleRate).toBe(sampleRate);
          expect(Array.from(wav.samples)).toEqual(samples);
        },
      ),
    );
  });

  it("reads espeak-ng's piped WAV, whose sizes say 0x7FFFFFF0: the data runs to the end", () => {
    const file = writeWav({ sampleRate: 22050, samples: Int16Array.from([1, -2, 3]) });
    file.writeUInt32LE(0x7ffffff0, 4);
    file.writeUInt32LE(0x7ffffff0, 40);
    expect(Array.from(parseWav(file).samples)).toEqual([1, -2, 3]);
  });

  it('refuses what is not a PCM16 WAV', () => {
    expect(() => parseWav(Buffer.from('not a wav file at all'))).toThrow(/RIFF/);
    const float = writeWav({ sampleRate: 8000, samples: Int16Array.from([0]) });
    float.writeUInt16LE(3, 20);
    expect(() => parseWav(float)).toThrow(/unsupported/);
  });
});

describe('telephony frames', () => {
  it('cuts µ-law into 160-byte (20 ms) frames, padding the last with silence', () => {
    const frames = mulawFrames(new Uint8Array(200).fill(1));
    expect(frames.map((f) => f.length)).toEqual([FRAME_SAMPLES, FRAME_SAMPLES]);
    expect(frames[1]?.[39]).toBe(1);
    expect(frames[1]?.[40]).toBe(MULAW_SILENCE);
    expect(mulawFrames(new Uint8Array(0))).toEqual([]);
  });

  it('turns one second of 22.05 kHz speech into 50 frames', () => {
    const frames = toTelephonyFrames({ sampleRate: 22050, samples: new Int16Array(22050) });
    expect(frames).toHaveLength(50);
  });
});
