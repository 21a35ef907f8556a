import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMulaw } from '../pipeline/audio.js';
import { bearerOf, gatewayStartSchema, tokenMatches } from './framing.js';
import { gatewayAudio, pcm16ToSamples, samplesToPcm16 } from './gatewayAudio.js';

const samples = fc
  .array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 400 })
  .map((a) => Int16Array.from(a));

describe('gateway audio', () => {
  it('PCM16 little-endian bytes and samples convert both ways unchanged', () => {
    fc.assert(
      fc.property(samples, (s) => {
        expect(pcm16ToSamples(samplesToPcm16(s))).toEqual(s);
      }),
    );
    expect([...samplesToPcm16(Int16Array.from([1, -2]))]).toEqual([1, 0, 0xfe, 0xff]);
  });

  it('PCM16 at 8 kHz split anywhere (odd bytes carried over) gives the µ-law of the whole', () => {
    fc.assert(
      fc.property(samples, fc.array(fc.nat(), { maxLength: 6 }), (s, cuts) => {
        const bytes = samplesToPcm16(s);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const audio = gatewayAudio({ encoding: 'pcm16', sampleRate: 8000 });
        const parts: number[] = [];
        let from = 0;
        for (const to of [...points, bytes.length]) {
          parts.push(...audio.inbound(bytes.subarray(from, to)));
          from = to;
        }
        expect(parts).toEqual([...encodeMulaw(s)]);
      }),
    );
  });

  it('sends 20 ms frames in the call’s format: 160 µ-law bytes, 640 bytes of 16 kHz PCM16', () => {
    const frame = new Uint8Array(160).fill(0x7f);
    expect(gatewayAudio({ encoding: 'mulaw', sampleRate: 8000 }).outbound(frame)).toBe(frame);
    expect(gatewayAudio({ encoding: 'pcm16', sampleRate: 16000 }).outbound(frame)).toHaveLength(640);
    expect(gatewayAudio({ encoding: 'pcm16', sampleRate: 48000 }).outbound(frame)).toHaveLength(1920);
  });
});

describe('gateway framing', () => {
  it('matches a token only when it is the stored one', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(tokenMatches(a, b)).toBe(a === b);
        expect(tokenMatches(a, a)).toBe(true);
      }),
    );
    expect(tokenMatches('secret', undefined)).toBe(false);
  });

  it('reads a bearer token from Authorization', () => {
    expect(bearerOf('Bearer abc.def')).toBe('abc.def');
    expect(bearerOf('bearer  abc ')).toBe('abc');
    expect(bearerOf(['Bearer x', 'Bearer y'])).toBe('x');
    expect(bearerOf('Basic abc')).toBeUndefined();
    expect(bearerOf(undefined)).toBeUndefined();
  });

  it('takes µ-law at 8 kHz only and PCM16 at the listed rates', () => {
    const start = (format: object) =>
      gatewayStartSchema.safeParse({ type: 'start', callId: 'c', format }).success;
    expect(start({ encoding: 'mulaw', sampleRate: 8000 })).toBe(true);
    expect(start({ encoding: 'mulaw', sampleRate: 16000 })).toBe(false);
    for (const sampleRate of [8000, 16000, 24000, 48000])
      expect(start({ encoding: 'pcm16', sampleRate })).toBe(true);
    expect(start({ encoding: 'pcm16', sampleRate: 44100 })).toBe(false);
    expect(start({ encoding: 'opus', sampleRate: 48000 })).toBe(false);
  });
});
