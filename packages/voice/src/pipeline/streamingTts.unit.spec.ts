import { describe, expect, it } from 'vitest';
import { parseWav, rms, writeWav } from './audio.js';
import { espeakTextToSpeech } from './engines.js';
import { wavStreamHeader } from './streamingTts.js';

describe('wavStreamHeader', () => {
  it('finds the data of a WAV once its header is complete, not before', () => {
    const wav = writeWav({ sampleRate: 22050, samples: Int16Array.of(1, 2, 3) });
    for (let n = 0; n < 44; n++) expect(wavStreamHeader(wav.subarray(0, n))).toBeNull();
    expect(wavStreamHeader(wav.subarray(0, 44))).toEqual({ sampleRate: 22050, dataOffset: 44 });
    expect(() => wavStreamHeader(Buffer.from('RIFF....WAVX'))).toThrow(/not a RIFF/);
    const stereo = Buffer.from(wav);
    stereo.writeUInt16LE(2, 22);
    expect(() => wavStreamHeader(stereo)).toThrow(/unsupported WAV stream/);
  });
});

describe('espeak-ng streamed (synthesizeStream)', () => {
  it('hands over the same speech as synthesize, in pieces', async () => {
    const tts = espeakTextToSpeech();
    const text = 'Your order was shipped yesterday, and it should arrive on Friday.';
    const pieces: Int16Array[] = [];
    let rate = 0;
    await tts.synthesizeStream?.(text, (samples, sampleRate) => {
      pieces.push(samples);
      rate = sampleRate;
    });
    const whole = await tts.synthesize(text);
    expect(rate).toBe(whole.sampleRate);
    const streamed = new Int16Array(pieces.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of pieces) {
      streamed.set(p, o);
      o += p.length;
    }
    expect(streamed).toEqual(whole.samples);
    expect(rms(streamed)).toBeGreaterThan(300);
    expect(parseWav(writeWav({ sampleRate: rate, samples: streamed })).samples).toHaveLength(streamed.length);
  });

  it('rejects when the engine cannot run', async () => {
    const tts = espeakTextToSpeech({ command: '/nonexistent/espeak' });
    await expect(tts.synthesizeStream?.('x', () => undefined)).rejects.toThrow(/ENOENT/);
  });
});
