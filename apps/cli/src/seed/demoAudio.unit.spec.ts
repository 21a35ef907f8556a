import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEMO_SAMPLE_RATE, demoCallAudio, encodeWav } from './demoAudio.js';

/** The fields of a PCM WAV header, read back the way a player would. */
function readWav(wav: Buffer) {
  return {
    riff: wav.toString('ascii', 0, 4),
    riffSize: wav.readUInt32LE(4),
    wave: wav.toString('ascii', 8, 12),
    fmt: wav.toString('ascii', 12, 16),
    format: wav.readUInt16LE(20),
    channels: wav.readUInt16LE(22),
    sampleRate: wav.readUInt32LE(24),
    byteRate: wav.readUInt32LE(28),
    bitsPerSample: wav.readUInt16LE(34),
    data: wav.toString('ascii', 36, 40),
    dataSize: wav.readUInt32LE(40),
  };
}

describe('demo audio', () => {
  it('encodes any samples as a valid 16-bit PCM mono WAV, clipping out-of-range values', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -4, max: 4 }), { maxLength: 200 }), (values) => {
        const wav = encodeWav(Float32Array.from(values), 8000);
        expect(readWav(wav)).toEqual({
          riff: 'RIFF',
          riffSize: wav.length - 8,
          wave: 'WAVE',
          fmt: 'fmt ',
          format: 1,
          channels: 1,
          sampleRate: 8000,
          byteRate: 16_000,
          bitsPerSample: 16,
          data: 'data',
          dataSize: values.length * 2,
        });
        values.forEach((v, i) => {
          const expected = Math.round(Math.max(-1, Math.min(1, Math.fround(v))) * 32_767);
          expect(wav.readInt16LE(44 + i * 2)).toBe(expected === 0 ? 0 : expected);
        });
      }),
    );
  });

  it('makes three deterministic files of the call length, with speech on each side and both in the mix', () => {
    const audio = demoCallAudio(7, 6);
    expect(demoCallAudio(7, 6)).toEqual(audio);
    expect(demoCallAudio(8, 6).caller.equals(audio.caller)).toBe(false);
    for (const wav of [audio.caller, audio.agent, audio.mixed]) {
      expect(readWav(wav).dataSize).toBe(6 * DEMO_SAMPLE_RATE * 2);
      expect(readWav(wav).sampleRate).toBe(DEMO_SAMPLE_RATE);
    }
    const energy = (wav: Buffer) => {
      let sum = 0;
      for (let i = 44; i < wav.length; i += 2) sum += Math.abs(wav.readInt16LE(i));
      return sum / ((wav.length - 44) / 2);
    };
    expect(energy(audio.caller)).toBeGreaterThan(200);
    expect(energy(audio.agent)).toBeGreaterThan(200);
    expect(energy(audio.mixed)).toBeGreaterThan(energy(audio.caller));
    // Turns alternate: where one side talks loudly the other is silent.
    let overlap = 0;
    for (let i = 44; i < audio.caller.length; i += 2) {
      if (Math.abs(audio.caller.readInt16LE(i)) > 2000 && Math.abs(audio.agent.readInt16LE(i)) > 2000)
        overlap++;
    }
    expect(overlap).toBe(0);
  });
});
