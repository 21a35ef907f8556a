import { createRandom, type Random } from './random.js';

/** 16-bit PCM mono WAV (RIFF, WAVE_FORMAT_PCM) of samples in [-1, 1]. */
export function encodeWav(samples: Float32Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] ?? 0));
    wav.writeInt16LE(Math.round(s * 32_767), 44 + i * 2);
  }
  return wav;
}

/** Telephone-band audio: 8 kHz, like most recording servers' mono WAV. */
export const DEMO_SAMPLE_RATE = 8_000;

/** Vowel formant targets (F1, F2 in Hz), roughly a, e, i, o, u. */
const VOWELS: ReadonlyArray<readonly [number, number]> = [
  [730, 1090],
  [530, 1840],
  [270, 2290],
  [570, 840],
  [300, 870],
];

interface Voice {
  /** Mean pitch (Hz). */
  pitch: number;
  /** Formant scale: shorter vocal tracts have higher formants. */
  formantScale: number;
}

const VOICES: Record<'caller' | 'agent', Voice> = {
  caller: { pitch: 205, formantScale: 1.12 },
  agent: { pitch: 118, formantScale: 1 },
};

/**
 * Speech-like sound for `seconds`: syllables of harmonics of a drifting pitch, shaped by two
 * formants that glide between vowel targets, with pauses between words. Not words, but it sounds
 * like a voice on a phone line, which is what a demo player needs.
 */
function speak(random: Random, voice: Voice, out: Float32Array, from: number, seconds: number): void {
  const sr = DEMO_SAMPLE_RATE;
  const end = Math.min(out.length, from + Math.floor(seconds * sr));
  const phases = new Float64Array(32);
  let t = from;
  while (t < end) {
    const syllables = random.int(1, 3);
    for (let s = 0; s < syllables && t < end; s++) {
      const length = Math.floor(sr * (0.12 + random.next() * 0.16));
      const [a1, a2] = random.pick(VOWELS);
      const [b1, b2] = random.pick(VOWELS);
      const pitchStart = voice.pitch * (0.85 + random.next() * 0.3);
      const pitchEnd = pitchStart * (0.8 + random.next() * 0.35);
      for (let i = 0; i < length && t < end; i++, t++) {
        const x = i / length;
        const f0 = pitchStart + (pitchEnd - pitchStart) * x;
        const f1 = (a1 + (b1 - a1) * x) * voice.formantScale;
        const f2 = (a2 + (b2 - a2) * x) * voice.formantScale;
        const envelope = Math.sin(Math.PI * x) ** 0.6;
        let sample = 0;
        for (let k = 1; k < phases.length && k * f0 < sr / 2 - 200; k++) {
          const f = k * f0;
          const gain =
            Math.exp(-(((f - f1) / 110) ** 2)) + 0.6 * Math.exp(-(((f - f2) / 160) ** 2)) + 0.02 / k;
          phases[k] = ((phases[k] ?? 0) + (2 * Math.PI * f) / sr) % (2 * Math.PI);
          sample += gain * Math.sin(phases[k] ?? 0);
        }
        out[t] = (out[t] ?? 0) + 0.24 * envelope * sample;
      }
    }
    t += Math.floor(sr * (0.05 + random.next() * 0.2)); // between words
  }
}

/** Who speaks when in a demo call: alternating turns, caller first. */
export function demoTurns(
  random: Random,
  seconds: number,
): Array<{ who: 'caller' | 'agent'; at: number; seconds: number }> {
  const turns: Array<{ who: 'caller' | 'agent'; at: number; seconds: number }> = [];
  let at = 0.3;
  let who: 'caller' | 'agent' = 'agent';
  while (at < seconds - 0.5) {
    const length = Math.min(0.8 + random.next() * 2.2, seconds - at - 0.2);
    turns.push({ who, at, seconds: length });
    at += length + 0.25 + random.next() * 0.5;
    who = who === 'agent' ? 'caller' : 'agent';
  }
  return turns;
}

export interface DemoCallAudio {
  caller: Buffer;
  agent: Buffer;
  mixed: Buffer;
  durationSeconds: number;
}

/** A call's three files (caller side, agent side, both mixed) as WAV, the same for the same seed. */
export function demoCallAudio(seed: number, seconds = 8): DemoCallAudio {
  const random = createRandom(seed);
  const length = Math.floor(seconds * DEMO_SAMPLE_RATE);
  const sides = { caller: new Float32Array(length), agent: new Float32Array(length) };
  for (const turn of demoTurns(random, seconds)) {
    speak(random, VOICES[turn.who], sides[turn.who], Math.floor(turn.at * DEMO_SAMPLE_RATE), turn.seconds);
  }
  const mixed = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    // A faint line hiss on the mix, as a real call has.
    const hiss = (random.next() - 0.5) * 0.004;
    mixed[i] = 0.8 * ((sides.caller[i] ?? 0) + (sides.agent[i] ?? 0)) + hiss;
  }
  return {
    caller: encodeWav(sides.caller, DEMO_SAMPLE_RATE),
    agent: encodeWav(sides.agent, DEMO_SAMPLE_RATE),
    mixed: encodeWav(mixed, DEMO_SAMPLE_RATE),
    durationSeconds: seconds,
  };
}
