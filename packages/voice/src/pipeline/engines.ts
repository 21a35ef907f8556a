import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav, resample, type Wav, writeWav } from './audio.js';

/** What a speech-to-text engine heard in one utterance. */
export interface Transcript {
  text: string;
  /** 0..1, or null when the engine gives none. */
  confidence: number | null;
}

/** Port: speech-to-text of one whole utterance. */
export interface SpeechToText {
  readonly name: string;
  transcribe(audio: Wav, options?: { signal?: AbortSignal }): Promise<Transcript>;
}

/** Port: text-to-speech; any sample rate (the gateway resamples to the call's). */
export interface TextToSpeech {
  readonly name: string;
  synthesize(text: string, options?: { signal?: AbortSignal }): Promise<Wav>;
}

interface RunResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
}

/** Runs a command (no shell), collecting stdout; rejects when it cannot start or runs too long. */
function run(
  command: string,
  args: string[],
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 64_000) err += chunk.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out), stderr: err, code });
    });
  });
}

export interface PocketsphinxOptions {
  /** Default `pocketsphinx_continuous`. */
  command?: string;
  /** Acoustic model, language model and dictionary; default Debian's en-us model. */
  hmm?: string;
  lm?: string;
  dict?: string;
  timeoutMs?: number;
}

const POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

/**
 * Offline speech-to-text with CMU pocketsphinx (Debian `pocketsphinx`): the utterance is written
 * as a 16 kHz mono WAV and decoded by `pocketsphinx_continuous -infile`. Confidence: the decoder's
 * posterior probability of the hypothesis when its log prints one (`-time yes` word lines), else null.
 */
export function pocketsphinxSpeechToText(options: PocketsphinxOptions = {}): SpeechToText {
  const command = options.command ?? 'pocketsphinx_continuous';
  const model = {
    hmm: options.hmm ?? `${POCKETSPHINX_MODEL}/en-us`,
    lm: options.lm ?? `${POCKETSPHINX_MODEL}/en-us.lm.bin`,
    dict: options.dict ?? `${POCKETSPHINX_MODEL}/cmudict-en-us.dict`,
  };
  return {
    name: 'pocketsphinx',
    async transcribe(audio, opts) {
      const dir = await mkdtemp(join(tmpdir(), 'parley-stt-'));
      try {
        const file = join(dir, 'utterance.wav');
        await writeFile(
          file,
          writeWav({ sampleRate: 16_000, samples: resample(audio.samples, audio.sampleRate, 16_000) }),
        );
        const result = await run(
          command,
          [
            '-infile',
            file,
            '-hmm',
            model.hmm,
            '-lm',
            model.lm,
            '-dict',
            model.dict,
            '-time',
            'yes',
            '-logfn',
            '/dev/null',
          ],
          { timeoutMs: options.timeoutMs ?? 60_000, signal: opts?.signal },
        );
        if (result.code !== 0)
          throw new Error(`pocketsphinx exited ${result.code}: ${result.stderr.slice(-500)}`);
        return parsePocketsphinxTimes(result.stdout.toString('utf8'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * `-time yes` output: one line per word, `word start end posterior`, markers `<s>`, `</s>`,
 * `<sil>`, `[NOISE]` and alternates `word(2)`. Text: the words; confidence: the mean posterior.
 */
export function parsePocketsphinxTimes(output: string): Transcript {
  const words: string[] = [];
  const posteriors: number[] = [];
  for (const line of output.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length !== 4) continue;
    const [word, start, end, posterior] = parts as [string, string, string, string];
    if (!Number.isFinite(Number(start)) || !Number.isFinite(Number(end))) continue;
    const p = Number(posterior);
    if (!Number.isFinite(p)) continue;
    if (/^<.*>$/.test(word) || /^\[.*\]$/.test(word) || word === '<sil>') continue;
    words.push(word.replace(/\(\d+\)$/, ''));
    posteriors.push(Math.max(0, Math.min(1, p)));
  }
  const confidence =
    posteriors.length === 0 ? null : posteriors.reduce((a, b) => a + b, 0) / posteriors.length;
  return { text: words.join(' '), confidence };
}

export interface EspeakOptions {
  /** Default `espeak-ng`. */
  command?: string;
  /** espeak-ng voice, default `en-us`. */
  voice?: string;
  /** Words per minute, default 160. */
  wordsPerMinute?: number;
  timeoutMs?: number;
}

/** Offline text-to-speech with espeak-ng (Debian `espeak-ng`): `--stdout` WAV, 22.05 kHz PCM16. */
export function espeakTextToSpeech(options: EspeakOptions = {}): TextToSpeech {
  const command = options.command ?? 'espeak-ng';
  return {
    name: 'espeak-ng',
    async synthesize(text, opts) {
      // `--` ends the options: a reply starting with `-` is spoken, not parsed.
      const result = await run(
        command,
        ['-v', options.voice ?? 'en-us', '-s', String(options.wordsPerMinute ?? 160), '--stdout', '--', text],
        { timeoutMs: options.timeoutMs ?? 30_000, signal: opts?.signal },
      );
      if (result.code !== 0) throw new Error(`espeak-ng exited ${result.code}: ${result.stderr.slice(-500)}`);
      return parseWav(result.stdout);
    },
  };
}

/** The engines named by voice.sttEngine / voice.ttsEngine (VOICE_STT_ENGINE, VOICE_TTS_ENGINE). */
export const SPEECH_TO_TEXT_ENGINES = ['pocketsphinx'] as const;
export const TEXT_TO_SPEECH_ENGINES = ['espeak-ng'] as const;

/** The speech-to-text engine of a VOICE_STT_ENGINE value; null when unset; throws for an unknown one. */
export function speechToTextOf(engine: string | undefined): SpeechToText | null {
  if (engine === undefined) return null;
  if (engine === 'pocketsphinx') return pocketsphinxSpeechToText();
  throw new Error(`unknown speech-to-text engine "${engine}" (known: ${SPEECH_TO_TEXT_ENGINES.join(', ')})`);
}

/** The text-to-speech engine of a VOICE_TTS_ENGINE value; null when unset; throws for an unknown one. */
export function textToSpeechOf(engine: string | undefined): TextToSpeech | null {
  if (engine === undefined) return null;
  if (engine === 'espeak-ng') return espeakTextToSpeech();
  throw new Error(`unknown text-to-speech engine "${engine}" (known: ${TEXT_TO_SPEECH_ENGINES.join(', ')})`);
}
