import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES } from './audio.js';
import { Endpointer, type EndpointerEvent, endSilenceMsFor } from './endpointer.js';

const frame = new Int16Array(FRAME_SAMPLES);
/** Feeds frames of the given energies (one per 20 ms); returns the events but null and `speech`. */
function feed(endpointer: Endpointer, energies: number[]): Exclude<EndpointerEvent, null>[] {
  const out: Exclude<EndpointerEvent, null>[] = [];
  for (const e of energies) {
    const event = endpointer.push(frame, e);
    if (event !== null && event.type !== 'speech') out.push(event);
  }
  return out;
}
const times = (n: number, energy: number) => Array.from({ length: n }, () => energy);

describe('Endpointer', () => {
  it('says nothing for silence', () => {
    expect(feed(new Endpointer(), times(200, 10))).toEqual([]);
  });

  it('starts after speechStartMs of speech and ends after endSilenceMs of silence, with a lead-in', () => {
    const endpointer = new Endpointer({ energyThreshold: 500, speechStartMs: 100, endSilenceMs: 200 });
    const events = feed(endpointer, [...times(20, 10), ...times(30, 2000), ...times(10, 10)]);
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'utterance']);
    const utterance = events[1] as Extract<EndpointerEvent, { type: 'utterance' }>;
    expect(utterance.speechMs).toBe(600);
    // 10 frames of lead-in (5 quiet + the 5 loud that started it), 25 more loud, 10 quiet.
    expect(utterance.frames).toHaveLength(10 + 25 + 10);
    expect(endpointer.speaking).toBe(false);
  });

  it('drops a blip shorter than minSpeechMs', () => {
    const events = feed(new Endpointer({ minSpeechMs: 300, speechStartMs: 60 }), [
      ...times(5, 5000),
      ...times(50, 0),
    ]);
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'discarded']);
  });

  it('keeps short pauses inside an utterance and cuts at maxUtteranceMs', () => {
    const pauses = feed(new Endpointer({ endSilenceMs: 300 }), [
      ...times(20, 900),
      ...times(10, 0),
      ...times(20, 900),
      ...times(15, 0),
    ]);
    expect(pauses.map((e) => e.type)).toEqual(['speech_start', 'utterance']);
    const long = feed(new Endpointer({ maxUtteranceMs: 1000 }), times(120, 900));
    expect(long.slice(0, 3).map((e) => e.type)).toEqual(['speech_start', 'utterance', 'speech_start']);
    expect((long[1] as Extract<EndpointerEvent, { type: 'utterance' }>).frames).toHaveLength(50);
  });

  it('reports each frame of the utterance in progress (to feed a recognizer), lead-in first', () => {
    const endpointer = new Endpointer({ speechStartMs: 60, endSilenceMs: 100 });
    const types: string[] = [];
    let leadIn = 0;
    for (const e of [...times(3, 0), ...times(10, 2000), ...times(5, 0), ...times(3, 0)]) {
      const event = endpointer.push(frame, e);
      if (event?.type === 'speech_start') leadIn = event.frames.length;
      types.push(event?.type ?? 'none');
    }
    expect(leadIn).toBe(6); // 3 quiet + the 3 loud that started it
    expect(types).toEqual([
      ...times(5, 0).map(() => 'none'),
      'speech_start',
      ...times(7 + 4, 0).map(() => 'speech'),
      'utterance',
      ...times(3, 0).map(() => 'none'),
    ]);
  });

  it('keeps the utterance open on frames above 60 % of the start threshold (hysteresis)', () => {
    const events = feed(new Endpointer({ energyThreshold: 1000, endSilenceMs: 100, speechStartMs: 20 }), [
      ...times(10, 2000),
      ...times(20, 700), // quieter tail, still speech
      ...times(5, 100),
    ]);
    expect(events.map((e) => e.type)).toEqual(['speech_start', 'utterance']);
    expect((events[1] as Extract<EndpointerEvent, { type: 'utterance' }>).speechMs).toBe(600);
  });

  it('raises the start threshold over background noise (3x its level)', () => {
    const endpointer = new Endpointer({ energyThreshold: 300, speechStartMs: 40 });
    expect(feed(endpointer, times(100, 250))).toEqual([]);
    expect(endpointer.startThreshold).toBeGreaterThan(700);
    expect(feed(endpointer, times(10, 600))).toEqual([]); // louder than the floor, not than the noise
    expect(feed(endpointer, times(3, 2000)).map((e) => e.type)).toEqual(['speech_start']);
  });
});

describe('endSilenceMsFor (voice.latencyTargetMs steering the end-of-speech wait)', () => {
  it('is half the target within 240..800 ms', () => {
    expect(endSilenceMsFor(500)).toBe(250);
    expect(endSilenceMsFor(1000)).toBe(500);
    expect(endSilenceMsFor(100)).toBe(240);
    expect(endSilenceMsFor(5000)).toBe(800);
    for (let t = 50; t <= 60_000; t += 97) {
      const ms = endSilenceMsFor(t);
      expect(ms).toBeGreaterThanOrEqual(240);
      expect(ms).toBeLessThanOrEqual(800);
      expect(endSilenceMsFor(t + 97)).toBeGreaterThanOrEqual(ms);
    }
  });
});
