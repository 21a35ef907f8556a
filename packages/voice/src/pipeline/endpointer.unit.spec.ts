import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES } from './audio.js';
import { Endpointer, type EndpointerEvent } from './endpointer.js';

const frame = new Int16Array(FRAME_SAMPLES);
/** Feeds frames of the given energies (one per 20 ms); returns the events that were not null. */
function feed(endpointer: Endpointer, energies: number[]): Exclude<EndpointerEvent, null>[] {
  const out: Exclude<EndpointerEvent, null>[] = [];
  for (const e of energies) {
    const event = endpointer.push(frame, e);
    if (event !== null) out.push(event);
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
    expect(events.map((e) => e.type)).toEqual(['speech_start']);
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
});
