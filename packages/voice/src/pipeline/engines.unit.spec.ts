import { loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { rms } from './audio.js';
import {
  espeakTextToSpeech,
  parsePocketsphinxTimes,
  pocketsphinxArgs,
  pocketsphinxResultComplete,
  speechToTextOf,
  textToSpeechOf,
} from './engines.js';

describe('parsePocketsphinxTimes', () => {
  it('keeps the words (without markers and alternates) and averages their posteriors', () => {
    const out = [
      'what is the weather',
      '<s> 0.030 0.100 0.990050',
      'what 0.110 0.300 0.600000',
      '<sil> 0.310 0.400 0.900000',
      'is(2) 0.410 0.500 0.400000',
      '[NOISE] 0.500 0.600 1.000000',
      '</s> 0.610 0.700 1.000000',
      '',
    ].join('\n');
    expect(parsePocketsphinxTimes(out)).toEqual({ text: 'what is', confidence: 0.5 });
  });

  it('gives an empty transcript without confidence when nothing was heard', () => {
    expect(parsePocketsphinxTimes('')).toEqual({ text: '', confidence: null });
    expect(parsePocketsphinxTimes('<s> 0.0 0.1 1.0\n</s> 0.1 0.2 1.0\n')).toEqual({
      text: '',
      confidence: null,
    });
  });
});

describe('pocketsphinx command line and result', () => {
  it('gives each flag once, extra flags overriding the tuning', () => {
    const args = pocketsphinxArgs({ extraArgs: ['-fwdflat', 'yes', '-lw', '10'] }, '/dev/stdin');
    const flags = args.filter((_, i) => i % 2 === 0);
    expect(new Set(flags).size).toBe(flags.length);
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect(value('-infile')).toBe('/dev/stdin');
    expect(value('-fwdflat')).toBe('yes');
    expect(value('-lw')).toBe('10');
    expect(value('-cmn')).toBe('live');
    expect(value('-time')).toBe('yes');
  });

  it('the result is complete at the </s> line', () => {
    expect(pocketsphinxResultComplete('hello\n<s> 0.0 0.1 1.0\nhello 0.1 0.5 0.9\n')).toBe(false);
    expect(pocketsphinxResultComplete('hello\n</s> 0.5 0.6 1.0')).toBe(false); // line not complete yet
    expect(pocketsphinxResultComplete('hello\n</s> 0.5 0.6 1.0\n')).toBe(true);
    expect(pocketsphinxResultComplete('</s> 0.5 0.6 1.0\n')).toBe(true);
  });
});

describe('engines by name (voice.sttEngine / voice.ttsEngine)', () => {
  it('knows pocketsphinx and espeak-ng; unset is null; unknown throws', () => {
    expect(speechToTextOf('pocketsphinx')?.name).toBe('pocketsphinx');
    expect(textToSpeechOf('espeak-ng')?.name).toBe('espeak-ng');
    expect(speechToTextOf(undefined)).toBeNull();
    expect(textToSpeechOf(undefined)).toBeNull();
    expect(() => speechToTextOf('whisper')).toThrow(/unknown speech-to-text engine/);
    expect(() => textToSpeechOf('polly')).toThrow(/unknown text-to-speech engine/);
  });

  it('the configuration refuses engines it does not have', () => {
    expect(() => loadConfig({ VOICE_STT_ENGINE: 'whisper' })).toThrow(
      /VOICE_STT_ENGINE must be pocketsphinx/,
    );
    expect(() => loadConfig({ VOICE_TTS_ENGINE: 'polly' })).toThrow(/VOICE_TTS_ENGINE must be espeak-ng/);
    const config = loadConfig({ VOICE_STT_ENGINE: ' pocketsphinx ', VOICE_TTS_ENGINE: '' });
    expect([config.VOICE_STT_ENGINE, config.VOICE_TTS_ENGINE]).toEqual(['pocketsphinx', undefined]);
  });
});

describe('espeak-ng (the real engine)', () => {
  it('speaks a sentence as a 22.05 kHz WAV, also one starting with a dash', async () => {
    const tts = espeakTextToSpeech();
    const wav = await tts.synthesize('-hello there');
    expect(wav.sampleRate).toBe(22050);
    expect(wav.samples.length).toBeGreaterThan(22050 / 2);
    expect(rms(wav.samples)).toBeGreaterThan(300);
  });

  it('rejects when the engine cannot run', async () => {
    await expect(espeakTextToSpeech({ command: '/nonexistent/espeak' }).synthesize('x')).rejects.toThrow(
      /ENOENT/,
    );
  });
});
