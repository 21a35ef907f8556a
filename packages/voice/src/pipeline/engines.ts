import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav, resample, type Wav, writeWav } from './audio.js';
import { writeDomainModel } from './languageModel.js';
import { type CallRecognizer, processCallRecognizer, RecognizerPool } from './streamingStt.js';
import { type OnAudio, streamWavCommand } from './streamingTts.js';

/** What a speech-to-text engine heard in one utterance. */
export interface Transcript {
  text: string;
  /** 0..1, or null when the engine gives none. */
  confidence: number | null;
}

/** Port: speech-to-text of one whole utterance, and (optionally) streamed while the caller speaks. */
export interface SpeechToText {
  readonly name: string;
  transcribe(audio: Wav, options?: { signal?: AbortSignal }): Promise<Transcript>;
  /**
   * A recognizer for one call, fed frame by frame while the caller speaks. Engines without it are
   * run once over each utterance after it ends.
   */
  openCallRecognizer?(): CallRecognizer;
}

/** Port: text-to-speech; any sample rate (the gateway resamples to the call's). */
export interface TextToSpeech {
  readonly name: string;
  synthesize(text: string, options?: { signal?: AbortSignal }): Promise<Wav>;
  /**
   * The same speech handed over in pieces as the engine produces it (resolves when all was
   * handed). Engines without it are spoken once synthesize resolves.
   */
  synthesizeStream?(text: string, onAudio: OnAudio, options?: { signal?: AbortSignal }): Promise<void>;
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
  /**
   * Domain phrases (what callers of this agent say): a trigram language model of them and a
   * dictionary of their words replace `lm` and `dict` (writeDomainModel). The recognizer then
   * only hears those words, in any order, the phrases' sequences likelier.
   */
  domainPhrases?: readonly string[];
  /** Load a recognizer now, for the first call (default: at the first call). */
  prewarm?: boolean;
  /** Decoder flags added after (so overriding) POCKETSPHINX_TUNING, e.g. ['-fwdflat', 'yes']. */
  extraArgs?: string[];
  timeoutMs?: number;
}

const POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

/**
 * Decoder settings measured on the WER phrases (pipeline/werPhrases.ts, docs/voice.md): live
 * cepstral mean normalisation (the model's `batch` needs the whole utterance), no second
 * (fwdflat) pass, which costs time at the end of the utterance, and at most 2,000 HMMs and 5
 * word exits per frame: 2.7x less CPU than the defaults with the same word error rate, so that a
 * call's recognizer keeps up with the caller on a loaded machine. The decoder's own end of an
 * utterance waits 2 s of silence: Parley's endpointer ends utterances (pocketsphinxResultComplete).
 */
export const POCKETSPHINX_TUNING: readonly string[] = [
  '-cmn',
  'live',
  '-fwdflat',
  'no',
  '-maxhmmpf',
  '2000',
  '-maxwpf',
  '5',
  '-vad_postspeech',
  '200',
];

/**
 * The command line of a recognizer reading 16 kHz PCM16 (`-infile` a WAV, or raw from a pipe).
 * Each flag once (the decoder refuses repeats): extraArgs override the tuning.
 */
export function pocketsphinxArgs(options: PocketsphinxOptions, infile: string): string[] {
  const flags = new Map<string, string>([
    ['-infile', infile],
    ['-hmm', options.hmm ?? `${POCKETSPHINX_MODEL}/en-us`],
    ['-lm', options.lm ?? `${POCKETSPHINX_MODEL}/en-us.lm.bin`],
    ['-dict', options.dict ?? `${POCKETSPHINX_MODEL}/cmudict-en-us.dict`],
  ]);
  const pairs = [...POCKETSPHINX_TUNING, ...(options.extraArgs ?? [])];
  for (let i = 0; i + 1 < pairs.length; i += 2) flags.set(pairs[i] as string, pairs[i + 1] as string);
  flags.set('-time', 'yes');
  flags.set('-logfn', '/dev/null');
  return [...flags].flat();
}

/**
 * Offline speech-to-text with CMU pocketsphinx (Debian `pocketsphinx`). Streamed: each call has a
 * recognizer process reading raw 16 kHz audio from its stdin (`-infile /dev/stdin`) as the caller
 * speaks (openCallRecognizer). Whole: the utterance is written as a 16 kHz WAV and decoded by
 * `pocketsphinx_continuous -infile`. Confidence: the mean posterior of the words (`-time yes`).
 */
export function pocketsphinxSpeechToText(engineOptions: PocketsphinxOptions = {}): SpeechToText {
  const options =
    engineOptions.domainPhrases === undefined
      ? engineOptions
      : {
          ...engineOptions,
          ...writeDomainModel(
            engineOptions.domainPhrases,
            engineOptions.dict ?? `${POCKETSPHINX_MODEL}/cmudict-en-us.dict`,
          ),
        };
  const command = options.command ?? 'pocketsphinx_continuous';
  const timeoutMs = options.timeoutMs ?? 60_000;
  // Loaded recognizers shared by the engine's calls.
  const pool = new RecognizerPool({
    command,
    args: pocketsphinxArgs(options, '/dev/stdin'),
    timeoutMs,
    parse: parsePocketsphinxTimes,
    complete: pocketsphinxResultComplete,
  });
  if (options.prewarm === true) pool.prewarm();
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
        const result = await run(command, pocketsphinxArgs(options, file), {
          timeoutMs,
          signal: opts?.signal,
        });
        if (result.code !== 0)
          throw new Error(`pocketsphinx exited ${result.code}: ${result.stderr.slice(-500)}`);
        return parsePocketsphinxTimes(result.stdout.toString('utf8'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    openCallRecognizer() {
      return processCallRecognizer(pool.options, pool);
    },
  };
}

/**
 * The last utterance's result is complete once its `</s>` word line is printed (the decoder then
 * only frees its models, which takes 60–270 ms on a loaded machine). With -vad_postspeech at 2 s
 * the decoder does not end an utterance of its own before the endpointer does (its hangover is at
 * most 800 ms), so the `</s>` printed after the input ended is the last one.
 */
export function pocketsphinxResultComplete(printedAfterEnd: string): boolean {
  return /(^|\n)<\/s> [^\n]*\n/.test(printedAfterEnd);
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

/**
 * Offline text-to-speech with espeak-ng (Debian `espeak-ng`): `--stdout` WAV, 22.05 kHz PCM16,
 * read whole (synthesize) or as it is written (synthesizeStream).
 */
export function espeakTextToSpeech(options: EspeakOptions = {}): TextToSpeech {
  const command = options.command ?? 'espeak-ng';
  const timeoutMs = options.timeoutMs ?? 30_000;
  // `--` ends the options: a reply starting with `-` is spoken, not parsed.
  const args = (text: string) => [
    '-v',
    options.voice ?? 'en-us',
    '-s',
    String(options.wordsPerMinute ?? 160),
    '--stdout',
    '--',
    text,
  ];
  return {
    name: 'espeak-ng',
    async synthesize(text, opts) {
      const result = await run(command, args(text), { timeoutMs, signal: opts?.signal });
      if (result.code !== 0) throw new Error(`espeak-ng exited ${result.code}: ${result.stderr.slice(-500)}`);
      return parseWav(result.stdout);
    },
    synthesizeStream(text, onAudio, opts) {
      return streamWavCommand(command, args(text), onAudio, { timeoutMs, signal: opts?.signal });
    },
  };
}

/** The engines named by voice.sttEngine / voice.ttsEngine (VOICE_STT_ENGINE, VOICE_TTS_ENGINE). */
export const SPEECH_TO_TEXT_ENGINES = ['pocketsphinx'] as const;
export const TEXT_TO_SPEECH_ENGINES = ['espeak-ng'] as const;

/** The speech-to-text engine of a VOICE_STT_ENGINE value; null when unset; throws for an unknown one. */
export function speechToTextOf(engine: string | undefined): SpeechToText | null {
  if (engine === undefined) return null;
  // The engine of a server: its first call finds a loaded recognizer.
  if (engine === 'pocketsphinx') return pocketsphinxSpeechToText({ prewarm: true });
  throw new Error(`unknown speech-to-text engine "${engine}" (known: ${SPEECH_TO_TEXT_ENGINES.join(', ')})`);
}

/** The text-to-speech engine of a VOICE_TTS_ENGINE value; null when unset; throws for an unknown one. */
export function textToSpeechOf(engine: string | undefined): TextToSpeech | null {
  if (engine === undefined) return null;
  if (engine === 'espeak-ng') return espeakTextToSpeech();
  throw new Error(`unknown text-to-speech engine "${engine}" (known: ${TEXT_TO_SPEECH_ENGINES.join(', ')})`);
}
