import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Transcript } from './engines.js';

/** One utterance being recognized while the caller speaks. */
export interface UtteranceStream {
  /** The next 8 kHz PCM16 samples of the utterance, in order (a 20 ms frame at a time). */
  write(samples: Int16Array): void;
  /** The utterance ended: what was heard. */
  finish(): Promise<Transcript>;
  /** The utterance was noise: its recognition is dropped. */
  cancel(): void;
}

/** The recognizer of one call: one stream per utterance, closed with the call. */
export interface CallRecognizer {
  startUtterance(): UtteranceStream;
  close(): void;
}

/**
 * 8 kHz → 16 kHz, frame by frame: each sample, then the mean with the next one (the first sample
 * of the next frame for the last one, so frames join without a seam).
 */
export class Upsampler {
  private last: number | null = null;

  push(samples: Int16Array): Int16Array {
    const out = new Int16Array(samples.length * 2);
    let o = 0;
    for (const s of samples) {
      if (this.last !== null) {
        out[o++] = this.last;
        out[o++] = (this.last + s) >> 1;
      }
      this.last = s;
    }
    return out.subarray(0, o);
  }

  /** The held last sample (end of the utterance). */
  flush(): Int16Array {
    if (this.last === null) return new Int16Array(0);
    const out = Int16Array.of(this.last, this.last);
    this.last = null;
    return out;
  }
}

/** A recognizer process: its stdin takes 16 kHz PCM16; it prints the hypothesis and word times at EOF. */
export interface RecognizerProcessOptions {
  command: string;
  args: string[];
  timeoutMs: number;
  /** Parses what the process printed. */
  parse(stdout: string): Transcript;
  /**
   * True when what the process printed after its input ended is its complete result (pocketsphinx:
   * the `</s>` line of the last utterance): the result is taken then, without waiting for the
   * process to free its models and exit. Without it, or when it never says so: at exit.
   */
  complete?(printedAfterEnd: string): boolean;
}

interface Warm {
  child: ChildProcessWithoutNullStreams;
  done: Promise<Transcript>;
  /** The input ended: from now on the output is checked for completeness. */
  ended(): void;
}

/**
 * Node's stdin "pipe" is a socket, which `/dev/stdin` cannot be opened on: `cat` copies it into a
 * real pipe. The process group (detached) is killed as a whole.
 */
function spawnWarm(options: RecognizerProcessOptions): Warm {
  const child = spawn('sh', ['-c', 'cat | "$0" "$@"', options.command, ...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  // Ready processes must not keep Node running (a closing server, a finished test).
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as unknown as { unref?(): void }).unref?.();
  let out = '';
  let err = '';
  /** Length of `out` when the input ended; null before. */
  let endedAt: number | null = null;
  let early: ((t: Transcript) => void) | null = null;
  const check = () => {
    if (endedAt !== null && early !== null && options.complete?.(out.slice(endedAt)))
      early(options.parse(out));
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (err.length < 16_000) err += chunk.toString('utf8');
  });
  // A closed pipe (the process died, or a cancelled utterance) is reported by `done`, not thrown.
  child.stdin.on('error', () => undefined);
  const done = new Promise<Transcript>((resolve, reject) => {
    early = resolve;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(options.parse(out));
      else reject(new Error(`${options.command} exited ${code ?? signal}: ${err.slice(-500)}`));
    });
  });
  done.catch(() => undefined);
  return {
    child,
    done,
    ended() {
      endedAt = out.length;
      check();
    },
  };
}

function kill(warm: Warm): void {
  if (warm.child.exitCode !== null || warm.child.signalCode !== null || warm.child.pid === undefined) return;
  try {
    process.kill(-warm.child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

const alive = (w: Warm) =>
  w.child.exitCode === null && w.child.signalCode === null && !w.child.stdin.destroyed;

/** Loaded processes a pool keeps ready at most, by default (pocketsphinx's: about 93 MB each). */
export const MAX_READY_RECOGNIZERS = 4;

/**
 * Loaded recognizer processes kept ready (an engine's, shared by its calls): one for the next
 * utterance of each open call, plus one for the next call, so that no caller waits for a model to
 * load, not even at the first words of a call; at most `maxReady` (memory): beyond, an utterance
 * starts a process when the caller starts speaking (its audio waits in the pipe while the model
 * loads). The processes do not keep Node running.
 */
export class RecognizerPool {
  private readonly spares: Warm[] = [];
  private calls = 0;

  constructor(
    readonly options: RecognizerProcessOptions,
    private readonly maxReady = MAX_READY_RECOGNIZERS,
  ) {}

  /** A call opens: one more process is kept ready. */
  open(): void {
    this.calls += 1;
    this.refill();
  }

  /** A call closed: the processes kept for it are ended. */
  close(): void {
    this.calls = Math.max(0, this.calls - 1);
    while (this.spares.length > this.target()) kill(this.spares.pop() as Warm);
  }

  /** A loaded process for an utterance (a new one when none is ready); a replacement is started. */
  take(): Warm {
    let taken: Warm | undefined;
    while (taken === undefined && this.spares.length > 0) {
      const next = this.spares.shift() as Warm;
      if (alive(next)) taken = next;
    }
    const process = taken ?? spawnWarm(this.options);
    this.refill();
    return process;
  }

  /** Starts the process for the next call now (a server, before its first call). */
  prewarm(): void {
    this.refill();
  }

  /** Processes kept ready now. */
  get ready(): number {
    return this.spares.filter(alive).length;
  }

  private refill(): void {
    for (let i = this.spares.length - 1; i >= 0; i--)
      if (!alive(this.spares[i] as Warm)) this.spares.splice(i, 1);
    while (this.spares.length < this.target()) this.spares.push(spawnWarm(this.options));
  }

  private target(): number {
    return Math.min(this.calls + 1, this.maxReady);
  }
}

/**
 * A call's recognizer over streaming recognizer processes: each utterance streams its audio into
 * a process whose model is already loaded (from the pool), while the caller speaks. At the end of
 * the utterance its stdin closes and only the last buffered audio and the decoder's final pass
 * remain. Without a pool, the call has one of its own.
 */
export function processCallRecognizer(
  options: RecognizerProcessOptions,
  pool: RecognizerPool = new RecognizerPool(options),
): CallRecognizer {
  pool.open();
  const live = new Set<Warm>();
  let closed = false;
  return {
    startUtterance() {
      if (closed) throw new Error('recognizer closed');
      const current = pool.take();
      live.add(current);
      const upsampler = new Upsampler();
      const write = (samples: Int16Array) => {
        if (samples.length === 0 || current.child.stdin.destroyed) return;
        current.child.stdin.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
      };
      let ended = false;
      return {
        write(samples) {
          if (!ended) write(upsampler.push(samples));
        },
        async finish() {
          if (ended) throw new Error('utterance already ended');
          ended = true;
          write(upsampler.flush());
          current.ended();
          current.child.stdin.end();
          const timer = setTimeout(() => kill(current), options.timeoutMs);
          try {
            return await current.done;
          } finally {
            clearTimeout(timer);
            live.delete(current);
          }
        },
        cancel() {
          ended = true;
          live.delete(current);
          kill(current);
        },
      };
    },
    close() {
      if (closed) return;
      closed = true;
      pool.close();
      // An utterance still finishing keeps its process until it prints.
      for (const w of live) if (!w.child.stdin.writableEnded) kill(w);
    },
  };
}
