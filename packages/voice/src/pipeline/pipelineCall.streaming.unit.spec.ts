import { describe, expect, it, vi } from 'vitest';
import { encodeMulaw, FRAME_SAMPLES, MULAW_SILENCE } from './audio.js';
import type { SpeechToText } from './engines.js';
import { createPipelineCall } from './pipelineCall.js';

// The streaming engines' side of the pipeline (stand-ins for the engines; the recognition test and
// the media WebSocket's integration test run the real ones).
const loudFrames = (ms: number) => {
  const samples = Int16Array.from({ length: (8 * ms) | 0 }, (_, i) => Math.round(8000 * Math.sin(i / 3)));
  return encodeMulaw(samples);
};
const quiet = (ms: number) => new Uint8Array(8 * ms).fill(MULAW_SILENCE);

describe('createPipelineCall with streaming engines', () => {
  /** A recognizer stand-in recording what it was fed and when. */
  function streamingStt(log: string[]): SpeechToText {
    return {
      name: 'streaming-stt',
      transcribe: async () => {
        throw new Error('not used: the engine streams');
      },
      openCallRecognizer() {
        let n = 0;
        return {
          startUtterance() {
            n += 1;
            const id = n;
            let frames = 0;
            log.push(`start:${id}`);
            return {
              write: () => {
                frames += 1;
              },
              finish: async () => {
                log.push(`finish:${id}:${frames}`);
                return { text: `utterance ${id}`, confidence: 0.9 };
              },
              cancel: () => log.push(`cancel:${id}:${frames}`),
            };
          },
          close: () => log.push('close'),
        };
      },
    };
  }

  it('feeds the recognizer while the caller speaks, finishes it at the end of speech, cancels noise', async () => {
    const log: string[] = [];
    const sent: string[] = [];
    let clock = 0;
    const call = createPipelineCall({
      stt: streamingStt(log),
      tts: {
        name: 't',
        synthesize: async (text) => ({ sampleRate: 8000, samples: new Int16Array(160 * text.length) }),
      },
      agent: { reply: async (text) => ({ text: `ok ${text}`, sessionId: 'ses_s' }) },
      output: { media: () => sent.push('media'), mark: (m) => sent.push(m), clear: () => sent.push('clear') },
      endpointing: { endSilenceMs: 100, speechStartMs: 40, minSpeechMs: 200 },
      now: () => clock,
    });
    const feed = (bytes: Uint8Array) => {
      for (let i = 0; i < bytes.length; i += FRAME_SAMPLES) {
        clock += 20;
        call.pushAudio(bytes.subarray(i, i + FRAME_SAMPLES));
      }
    };
    feed(quiet(100));
    feed(loudFrames(60)); // a blip: starts, then too short
    feed(quiet(200));
    // Fed: the lead-in (5 quiet + the 2 loud that started it), 1 loud, 4 quiet; the 5th quiet frame drops it.
    expect(log).toEqual(['start:1', 'cancel:1:12']);
    feed(loudFrames(400));
    expect(log.at(-1)).toBe('start:2'); // streamed before the end of speech
    feed(quiet(100));
    expect(log.at(-1)).toMatch(/^finish:2:\d+$/);
    await vi.waitFor(() => expect(sent).toContain('reply-1'));
    const metrics = await call.stop();
    expect(log.at(-1)).toBe('close');
    expect(metrics).toMatchObject({
      utteranceCount: 1,
      turnCount: 1,
      sttConfidence: 0.9,
      firstResponseTimeMs: 0,
    });
  });

  it('speaks the first clause as soon as it streams in, its audio as the engine produces it', async () => {
    const events: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const call = createPipelineCall({
      stt: { name: 's', transcribe: async () => ({ text: 'weather', confidence: null }) },
      tts: {
        name: 'streaming-tts',
        synthesize: async () => {
          throw new Error('not used: the engine streams');
        },
        async synthesizeStream(text, onAudio) {
          events.push(`tts:${text}`);
          onAudio(new Int16Array(160 * 3).fill(2000), 8000); // 3 frames now
          await new Promise((resolve) => setTimeout(resolve, 5));
          onAudio(new Int16Array(100).fill(2000), 8000); // and a partial one, padded at the end
        },
      },
      agent: {
        async reply(_text, onDelta) {
          onDelta?.('It is sunny in Paris, ');
          await held; // the rest of the reply has not come yet
          onDelta?.('with a light breeze. Enjoy!');
          return { text: 'It is sunny in Paris, with a light breeze. Enjoy!', sessionId: 'ses_t' };
        },
      },
      output: {
        media: () => events.push('media'),
        mark: (m) => events.push(m),
        clear: () => events.push('clear'),
      },
      endpointing: { endSilenceMs: 200 },
    });
    call.pushAudio(new Uint8Array([...loudFrames(400), ...quiet(400)]));
    await vi.waitFor(() => expect(events.filter((e) => e === 'media')).toHaveLength(4));
    expect(events).toEqual(['tts:It is sunny in Paris,', 'media', 'media', 'media', 'media']);
    release();
    await vi.waitFor(() => expect(events).toContain('reply-1'));
    expect(events.filter((e) => e.startsWith('tts:'))).toEqual([
      'tts:It is sunny in Paris,',
      'tts:with a light breeze.',
      'tts:Enjoy!',
    ]);
    expect(events.filter((e) => e === 'media')).toHaveLength(12);
    await call.stop();
  });
});

describe('voice.latencyTargetMs steering the end-of-speech wait', () => {
  it('ends the utterance after half the target of silence (explicit endpointing wins)', async () => {
    const endsAfter = async (options: { latencyTargetMs?: number; endSilenceMs?: number }) => {
      let ended = false;
      const call = createPipelineCall({
        stt: {
          name: 's',
          transcribe: async () => {
            ended = true;
            return { text: '', confidence: null };
          },
        },
        tts: { name: 't', synthesize: async () => ({ sampleRate: 8000, samples: new Int16Array(0) }) },
        agent: { reply: async () => ({ text: '', sessionId: 's' }) },
        output: { media: () => undefined, mark: () => undefined, clear: () => undefined },
        ...(options.latencyTargetMs === undefined ? {} : { latencyTargetMs: options.latencyTargetMs }),
        ...(options.endSilenceMs === undefined
          ? {}
          : { endpointing: { endSilenceMs: options.endSilenceMs } }),
      });
      call.pushAudio(loudFrames(400));
      let quietMs = 0;
      while (!ended && quietMs < 2_000) {
        call.pushAudio(quiet(20));
        quietMs += 20;
      }
      await call.stop();
      return quietMs;
    };
    expect(await endsAfter({ latencyTargetMs: 500 })).toBe(260); // 250 ms → 13 frames
    expect(await endsAfter({ latencyTargetMs: 1200 })).toBe(600);
    expect(await endsAfter({ latencyTargetMs: 100 })).toBe(240);
    expect(await endsAfter({})).toBe(300); // the endpointer's own default
    expect(await endsAfter({ latencyTargetMs: 500, endSilenceMs: 700 })).toBe(700);
  });
});
