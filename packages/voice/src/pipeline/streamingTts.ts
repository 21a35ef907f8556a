import { spawn } from 'node:child_process';

/** Audio of a synthesized chunk as it is produced: PCM16 mono samples at `sampleRate`. */
export type OnAudio = (samples: Int16Array, sampleRate: number) => void;

/**
 * Where a streamed PCM16 WAV's samples start: its sample rate and the offset of the `data`
 * chunk's body; null while the header is incomplete. Throws for what is not PCM16 WAV.
 */
export function wavStreamHeader(buffer: Buffer): { sampleRate: number; dataOffset: number } | null {
  if (buffer.length < 12) return null;
  if (buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE stream');
  let offset = 12;
  let sampleRate = 0;
  while (offset + 8 <= buffer.length) {
    const id = buffer.toString('ascii', offset, offset + 4);
    const size = buffer.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'data') {
      if (sampleRate === 0) throw new Error('WAV data before fmt');
      return { sampleRate, dataOffset: body };
    }
    if (body + size > buffer.length) return null;
    if (id === 'fmt ') {
      const format = buffer.readUInt16LE(body);
      const channels = buffer.readUInt16LE(body + 2);
      const bits = buffer.readUInt16LE(body + 14);
      if (format !== 1 || bits !== 16 || channels !== 1)
        throw new Error(`unsupported WAV stream ${format}/${bits} bits/${channels} channels`);
      sampleRate = buffer.readUInt32LE(body + 4);
    }
    offset = body + size + (size % 2);
  }
  return null;
}

/**
 * Runs a command whose stdout is a PCM16 mono WAV and hands its samples to onAudio as they come
 * (espeak-ng `--stdout` writes while it speaks). Resolves when the command exits 0.
 */
export function streamWavCommand(
  command: string,
  args: string[],
  onAudio: OnAudio,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
    let head: Buffer | null = Buffer.alloc(0);
    let sampleRate = 0;
    let odd: Buffer = Buffer.alloc(0);
    let err = '';
    let failed: unknown = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    const emit = (bytes: Buffer) => {
      const all = odd.length === 0 ? bytes : Buffer.concat([odd, bytes]);
      const even = all.length - (all.length % 2);
      odd = all.subarray(even);
      if (even === 0) return;
      const samples = new Int16Array(even / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = all.readInt16LE(i * 2);
      onAudio(samples, sampleRate);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (failed !== null) return;
      try {
        if (head === null) return emit(chunk);
        head = Buffer.concat([head, chunk]);
        const header = wavStreamHeader(head);
        if (header === null) return;
        sampleRate = header.sampleRate;
        const rest = head.subarray(header.dataOffset);
        head = null;
        emit(rest);
      } catch (e) {
        failed = e;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 16_000) err += chunk.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failed !== null) reject(failed);
      else if (code !== 0) reject(new Error(`${command} exited ${code}: ${err.slice(-500)}`));
      else if (head !== null) reject(new Error(`${command} wrote no WAV data`));
      else resolve();
    });
  });
}
