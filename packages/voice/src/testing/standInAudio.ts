import { readFileSync } from 'node:fs';
import { decodeMulaw, encodeMulaw, resample, rms } from '../pipeline/audio.js';
import { alawToLinear, linearToAlaw } from '../realtime/realtimeAudio.js';

/** The session audio formats of the Realtime API (GA `audio/*` types) the stand-in speaks. */
export type StandInFormat = 'audio/pcm' | 'audio/pcmu' | 'audio/pcma';

export const formatRate = (format: StandInFormat): number => (format === 'audio/pcm' ? 24_000 : 8000);

/** An appended chunk as PCM16 samples at the format's rate. */
export function samplesOf(format: StandInFormat, bytes: Buffer): Int16Array {
  switch (format) {
    case 'audio/pcm': {
      const out = new Int16Array(Math.floor(bytes.length / 2));
      for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
      return out;
    }
    case 'audio/pcmu':
      return decodeMulaw(bytes);
    case 'audio/pcma':
      return Int16Array.from(bytes, (b) => alawToLinear(b));
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown format ${String(exhaustive)}`);
    }
  }
}

/** A recorded 24 kHz PCM16 delta in the session's output format. */
export function deltaIn(format: StandInFormat, pcm24k: Buffer): Buffer {
  if (format === 'audio/pcm') return pcm24k;
  const narrow = resample(samplesOf('audio/pcm', pcm24k), 24_000, 8000);
  return format === 'audio/pcmu'
    ? Buffer.from(encodeMulaw(narrow))
    : Buffer.from(Array.from(narrow, (s) => linearToAlaw(s)));
}

/** The recorded reply the stand-in plays (fixtures/realtimeReply.json: espeak-ng speech, 100 ms deltas). */
export interface RecordedReply {
  transcript: string;
  deltas: Buffer[];
}

let recorded: RecordedReply | null = null;
export function recordedReply(): RecordedReply {
  if (recorded === null) {
    const file = JSON.parse(
      readFileSync(new URL('./fixtures/realtimeReply.json', import.meta.url), 'utf8'),
    ) as { transcript: string; deltas: string[] };
    recorded = { transcript: file.transcript, deltas: file.deltas.map((d) => Buffer.from(d, 'base64')) };
  }
  return recorded;
}

/**
 * Server VAD as the stand-in does it: 20 ms windows, speech above an energy threshold, the
 * utterance over after `silence_duration_ms` of silence. Positions are ms of audio appended.
 */
export class StandInVad {
  private audioMs = 0;
  private speaking = false;
  private silentMs = 0;
  private startMs = 0;
  private carry: number[] = [];

  constructor(private readonly threshold = 500) {}

  /** Feeds samples; answers the speech starts and ends they contain. */
  push(
    samples: Int16Array,
    rate: number,
    silenceDurationMs: number,
  ): Array<{ kind: 'start' | 'stop'; ms: number }> {
    const window = rate / 50;
    const all = this.carry.concat(Array.from(samples));
    const events: Array<{ kind: 'start' | 'stop'; ms: number }> = [];
    let i = 0;
    for (; i + window <= all.length; i += window) {
      const loud = rms(Int16Array.from(all.slice(i, i + window))) >= this.threshold;
      this.audioMs += 20;
      if (loud && !this.speaking) {
        this.speaking = true;
        this.startMs = this.audioMs - 20;
        events.push({ kind: 'start', ms: this.startMs });
      }
      if (this.speaking) this.silentMs = loud ? 0 : this.silentMs + 20;
      if (this.speaking && this.silentMs >= silenceDurationMs) {
        this.speaking = false;
        this.silentMs = 0;
        events.push({ kind: 'stop', ms: this.audioMs });
      }
    }
    this.carry = all.slice(i);
    return events;
  }
}
